import { FieldError, validatePlain } from '../common/validation.js';
import { statusFieldErrors } from '../payment-status/payment-report.rules.js';
import { SEED_SECTIONS, SeedFileDto } from './seed-file.dto.js';

export type SeedValidation = { ok: true; seed: SeedFileDto } | { ok: false; errors: FieldError[] };

/**
 * Checks a whole seed file before anything is written: its sections, the per-field rules, the
 * status rules of each session, and duplicates inside the file (a pair triple, a merchant, a
 * session key given twice would make a re-run of the same file change data).
 */
export async function validateSeed(content: unknown): Promise<SeedValidation> {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    return {
      ok: false,
      errors: [
        {
          field: '(root)',
          message: `must be an object with the sections ${SEED_SECTIONS.join(', ')}`,
        },
      ],
    };
  }
  const { value: seed, errors } = await validatePlain(SeedFileDto, content);
  errors.push(...unknownSections(content));
  listOf(seed.paymentSessions).forEach((session, index) => {
    if (typeof session?.validationKey !== 'string') return;
    for (const error of statusFieldErrors(session.validationKey, session)) {
      errors.push({ field: `paymentSessions[${index}].${error.field}`, message: error.message });
    }
  });
  errors.push(
    ...duplicates(seed.cryptoPairs, 'cryptoPairs', (p) =>
      [p.currencyCode, p.protocol, p.countryCode].join('/'),
    ),
    ...duplicates(seed.merchants, 'merchants', (m) => m.id),
    ...duplicates(seed.paymentSessions, 'paymentSessions', (s) => s.validationKey),
  );
  if (errors.length > 0) return { ok: false, errors: sortByPath(errors) };
  return { ok: true, seed };
}

function unknownSections(content: object): FieldError[] {
  const known: readonly string[] = SEED_SECTIONS;
  return Object.keys(content)
    .filter((name) => !known.includes(name))
    .map((name) => ({
      field: printableName(name),
      message: `is not a known section (${SEED_SECTIONS.join(', ')})`,
    }));
}

/** A section name as it may appear in a one-line report: plain names as they are, others quoted and cut. */
function printableName(name: string): string {
  if (/^[A-Za-z0-9_$-]{1,64}$/.test(name)) return name;
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

function duplicates<T>(
  records: T[] | undefined,
  section: string,
  keyOf: (record: T) => unknown,
): FieldError[] {
  const seen = new Map<string, number>();
  const errors: FieldError[] = [];
  listOf(records).forEach((record, index) => {
    if (typeof record !== 'object' || record === null) return;
    const key = JSON.stringify(keyOf(record));
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else errors.push({ field: `${section}[${index}]`, message: `duplicates ${section}[${first}]` });
  });
  return errors;
}

function sortByPath(errors: FieldError[]): FieldError[] {
  const order = (field: string) =>
    field.replace(/\[(\d+)\]/g, (_all, n: string) => `[${n.padStart(9, '0')}]`);
  return [...errors].sort((a, b) => order(a.field).localeCompare(order(b.field)));
}

/** A section as a list; one that is not a list was already reported by the field rules. */
function listOf<T>(section: T[] | undefined): T[] {
  return Array.isArray(section) ? section : [];
}
