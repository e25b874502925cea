import { CryptoPairInputDto } from '../catalog/dto/crypto-pair-input.dto.js';
import type { MaybePromise } from '../common/maybe-async.js';
import { textFieldRefusals } from '../common/http/json-text.js';
import { FieldError, validatePlain } from '../common/validation.js';
import { ValidationPlan } from '../common/validation-plan.js';
import { asciiLowerCase } from '../common/validators.js';
import { SeedMerchantDto } from '../merchants/dto/merchant.dto.js';
import { CreateOperatorDto } from '../operators/dto/operator.dto.js';
import { SeedPaymentSessionDto } from '../payment-status/dto/payment-report.dto.js';
import { isZonedDateTime } from '../common/iso-time.js';
import { seededTimeErrors, statusFieldErrors } from '../payment-status/payment-report.rules.js';
import { DuplicateKeys } from './duplicate-keys.js';
import {
  RECORD_RULE,
  SECTION_LIMITS,
  SEED_SECTIONS,
  SeedFileDto,
  type SeedSection,
} from './seed-file.dto.js';

/** The key two records of a section may not share (a re-run of the file would change data). */
const KEY_OF: Record<SeedSection, (record: Record<string, unknown>) => unknown> = {
  cryptoPairs: (p) => [p.currencyCode, p.protocol, p.countryCode].join('/'),
  merchants: (m) => m.id,
  paymentSessions: (s) => s.validationKey,
  // Names are unique whatever their case (as the operators' own rule: asciiLowerCase).
  operators: (o) => (typeof o.name === 'string' ? asciiLowerCase(o.name) : o.name),
};

/** A field the format does not know is refused with its path: a misspelt one never drops data. */
const STRICT = { refuseUnknown: true };

/** The rules of each section's records, compiled once (see ValidationPlan). */
const PLANS = {
  cryptoPairs: ValidationPlan.of(CryptoPairInputDto, STRICT),
  merchants: ValidationPlan.of(SeedMerchantDto, STRICT),
  paymentSessions: ValidationPlan.of(SeedPaymentSessionDto, STRICT),
  operators: ValidationPlan.of(CreateOperatorDto, STRICT),
} satisfies Record<SeedSection, ValidationPlan<object>>;

/** A record after its checks: the instance the rules built, and whether it is valid. */
export interface CheckedRecord {
  instance: unknown;
  valid: boolean;
}

/** One section of the file, as the checks found it so far. */
class SectionCheck {
  count = 0;
  /** Errors of the section's rules on its records (dropped for a section over its limit). */
  readonly recordErrors: FieldError[] = [];
  /** Errors of the status rules, and the section's own. */
  readonly otherErrors: FieldError[] = [];
  readonly keys = new DuplicateKeys();

  constructor(readonly name: SeedSection) {}
}

/**
 * The checks of a seed file before anything is committed: its sections, each record's field
 * rules (the DTOs' decorators), the status rules of each session, and keys given twice in a
 * section. Fed one record at a time, so a file of any size is checked in bounded memory; reports
 * every bad record, sorted by path, with the messages of the rules themselves.
 */
export class SeedCheck {
  private readonly sections = new Map<SeedSection, SectionCheck>();
  private readonly fileErrors: FieldError[] = [];
  private readonly unknown = new Set<string>();
  private rootRefused = false;
  private refusedRecords = 0;
  private suspected = false;

  /** True once something is wrong with the file (duplicates may still be suspected only). */
  get failed(): boolean {
    return this.rootRefused || this.fileErrors.length > 0 || this.refusedRecords > 0;
  }

  /** True while a key may repeat an earlier one: `errors()` tells for sure. */
  get suspectsDuplicates(): boolean {
    return this.suspected;
  }

  /** Records of the section (0 when absent or not a list). */
  given(section: SeedSection): number {
    return this.sections.get(section)?.count ?? 0;
  }

  /** The top-level value is not an object: the file's only error. */
  refuseRoot(): void {
    this.rootRefused = true;
  }

  /**
   * A top-level key. A known section given again replaces the earlier one (JSON.parse keeps the
   * last), so its findings are forgotten. Returns whether the section is known.
   */
  section(name: string): name is SeedSection {
    if ((SEED_SECTIONS as readonly string[]).includes(name)) {
      this.sections.set(name as SeedSection, new SectionCheck(name as SeedSection));
      return true;
    }
    if (!this.unknown.has(name)) {
      this.unknown.add(name);
      this.fileErrors.push({
        field: printableName(name),
        message: `is not a known section (${SEED_SECTIONS.join(', ')})`,
      });
    }
    return false;
  }

  /** Checks record `index` of the section's list; the instance is what the writes use. */
  record(name: SeedSection, index: number, plain: unknown): MaybePromise<CheckedRecord> {
    const section = this.sections.get(name)!;
    section.count = index + 1;
    // A list is not a record, though an empty one would pass every rule of its items.
    if (Array.isArray(plain)) {
      return this.checked(section, index, undefined, [
        { field: `${name}[${index}]`, message: RECORD_RULE },
      ]);
    }
    // Text that is not text (a control character, a lone surrogate, bytes that are not UTF-8) is
    // refused with its field, as in a request body; the rules name the record's other faults.
    const text = textFieldRefusals(plain, `${name}[${index}]`, 'brackets');
    const instance = text.length === 0 ? PLANS[name].accept(plain) : undefined;
    if (instance !== undefined) return this.checked(section, index, instance, []);
    return validatePlain(SeedFileDto, { [name]: [plain] }, STRICT).then(({ value, errors }) => {
      const records = value[name] as unknown[];
      // A field's own rule (a key's pattern) says more than the text rule: it wins.
      const rules = reindexed(errors, name, index);
      const ruled = new Set(rules.map((error) => error.field));
      const textOnly = text.filter((error) => !ruled.has(error.field));
      return this.checked(section, index, records[0], [...rules, ...textOnly]);
    });
  }

  /** The instance the rules build from a record, valid or not (its key, for duplicates). */
  async instanceOf(name: SeedSection, plain: unknown): Promise<unknown> {
    const instance = PLANS[name].accept(plain);
    if (instance !== undefined) return instance;
    const { value } = await validatePlain(SeedFileDto, { [name]: [plain] }, STRICT);
    return (value[name] as unknown[])[0];
  }

  /** The record's instance again, for a second reading of the file: it must still be valid. */
  async recheck(name: SeedSection, plain: unknown): Promise<unknown> {
    const instance = PLANS[name].accept(plain);
    if (instance !== undefined) return instance;
    const { value, errors } = await validatePlain(SeedFileDto, { [name]: [plain] }, STRICT);
    const records = value[name] as unknown[];
    const [error] = statusErrors(name, records[0]).concat(errors);
    if (error) throw new Error(`the file changed while it was read (${error.field})`);
    return records[0];
  }

  /** A known section whose value is not a list: null is an absent section, anything else an error. */
  async value(name: SeedSection, plain: unknown): Promise<void> {
    if (plain === null) return;
    const section = this.sections.get(name)!;
    const { errors } = await validatePlain(SeedFileDto, { [name]: plain }, STRICT);
    section.otherErrors.push(...errors);
  }

  /** Every error found, sorted by path; `keysOf` reads again the keys of earlier records. */
  async errors(
    keysOf: (section: SeedSection, indexes: number[]) => Promise<Map<number, string>>,
  ): Promise<FieldError[]> {
    if (this.rootRefused) {
      return [
        {
          field: '(root)',
          message: `must be an object with the sections ${SEED_SECTIONS.join(', ')}`,
        },
      ];
    }
    const errors = [...this.fileErrors];
    for (const section of this.sections.values()) {
      const limit = SECTION_LIMITS[section.name];
      if (section.count > limit) {
        // The list's own rule comes first; class-validator then leaves its elements unchecked.
        errors.push({ field: section.name, message: `must hold at most ${limit} records` });
      } else {
        errors.push(...section.recordErrors);
      }
      errors.push(...section.otherErrors);
      const duplicates = await section.keys.confirm((indexes) => keysOf(section.name, indexes));
      for (const { index, first } of duplicates) {
        errors.push({
          field: `${section.name}[${index}]`,
          message: `duplicates ${section.name}[${first}]`,
        });
      }
    }
    return sortByPath(errors);
  }

  private checked(
    section: SectionCheck,
    index: number,
    instance: unknown,
    errors: FieldError[],
  ): CheckedRecord {
    section.recordErrors.push(...errors);
    const status = statusErrors(section.name, instance).map((error) => ({
      field: `${section.name}[${index}].${error.field}`,
      message: error.message,
    }));
    section.otherErrors.push(...status);
    const key = keyOf(section.name, instance);
    if (key !== undefined && section.keys.add(key, index)) this.suspected = true;
    const valid = errors.length === 0 && status.length === 0;
    if (!valid) this.refusedRecords++;
    return { instance, valid };
  }
}

/** The status rules apply to sessions with a key (others already fail their field rules). */
function statusErrors(name: SeedSection, instance: unknown): FieldError[] {
  if (name !== 'paymentSessions') return [];
  const session = instance as SeedPaymentSessionDto | undefined;
  if (typeof session?.validationKey !== 'string') return [];
  const times = { createdAt: session.createdAt, finalAt: session.finalAt };
  // Times that break their own rule are reported by it; only valid ones are compared.
  const valid = Object.values(times).every((time) => time === undefined || isZonedDateTime(time));
  return [
    ...statusFieldErrors(session.validationKey, session),
    ...(valid ? seededTimeErrors(session.status, times) : []),
  ];
}

/** The text a record is compared on for duplicates; undefined for a record that is not an object. */
export function keyOf(name: SeedSection, instance: unknown): string | undefined {
  if (typeof instance !== 'object' || instance === null) return undefined;
  return String(JSON.stringify(KEY_OF[name](instance as Record<string, unknown>)));
}

/** Errors of a one-record list, renamed to the record's place in the file. */
function reindexed(errors: FieldError[], name: string, index: number): FieldError[] {
  const prefix = `${name}[0]`;
  return errors.map((error) => ({
    field: error.field.startsWith(prefix)
      ? `${name}[${index}]${error.field.slice(prefix.length)}`
      : error.field,
    message: error.message,
  }));
}

/** A section name as it may appear in a one-line report: plain names as they are, others quoted and cut. */
function printableName(name: string): string {
  if (/^[A-Za-z0-9_$-]{1,64}$/.test(name)) return name;
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

/** Errors in path order, indexes compared as numbers. */
export function sortByPath(errors: FieldError[]): FieldError[] {
  const order = (field: string) =>
    field.replace(/\[(\d+)\]/g, (_all, n: string) => `[${n.padStart(9, '0')}]`);
  return [...errors].sort((a, b) => order(a.field).localeCompare(order(b.field)));
}
