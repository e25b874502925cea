import type { CatalogService } from '../catalog/catalog.service.js';
import type { CryptoPairInputDto } from '../catalog/dto/crypto-pair-input.dto.js';
import { ApiError } from '../common/errors/api-error.js';
import type { FieldError } from '../common/validation.js';
import { BATCH_ROWS } from '../database/batch-statements.js';
import type { Tx } from '../database/transactions.js';
import type { SeedMerchantDto } from '../merchants/dto/merchant.dto.js';
import type { MerchantService } from '../merchants/merchant.service.js';
import type { CreateOperatorDto } from '../operators/dto/operator.dto.js';
import type { OperatorService } from '../operators/operator.service.js';
import type { SeedPaymentSessionDto } from '../payment-status/dto/payment-report.dto.js';
import type {
  PaymentSessionService,
  ReportOutcome,
} from '../payment-status/payment-session.service.js';
import type { SeedSection } from './seed-file.dto.js';

export interface SeedSummary {
  cryptoPairs: { given: number; changed: number };
  merchants: { given: number; changed: number };
  paymentSessions: Record<ReportOutcome, number>;
  operators: { given: number; created: number; changed: number };
  /** The tokens of the operators created, each to be shown once (none after a dry run). */
  tokens: { name: string; role: string; token: string }[];
}

/** The services a seed file is written through: the same as the operator API's. */
export interface SeedServices {
  catalog: CatalogService;
  merchants: MerchantService;
  sessions: PaymentSessionService;
  operators: OperatorService;
}

/** Batches written at once. */
const IN_FLIGHT = 2;

/** The order sections are written in (a session needs its merchant); refusals are reported so. */
const WRITE_RANK: Record<SeedSection, number> = {
  operators: 0,
  merchants: 1,
  cryptoPairs: 2,
  paymentSessions: 3,
};

export const WRITE_ORDER = (Object.keys(WRITE_RANK) as SeedSection[]).sort(
  (a, b) => WRITE_RANK[a] - WRITE_RANK[b],
);

interface Pending {
  index: number;
  instance: unknown;
}

/**
 * Writes the valid records of a seed file inside the caller's transaction, through the services
 * of the operator API: operators and merchants one by one, pairs and sessions in batches (a few statements per
 * batch instead of several per record). While one batch is written the next is being read and
 * checked. Records the database refuses are kept with their paths; nothing stops on them, so every
 * refused record is reported.
 */
export class SeedWriter {
  readonly summary: SeedSummary = {
    cryptoPairs: { given: 0, changed: 0 },
    merchants: { given: 0, changed: 0 },
    paymentSessions: { created: 0, updated: 0, unchanged: 0 },
    operators: { given: 0, created: 0, changed: 0 },
    tokens: [],
  };
  private readonly refusals: { section: SeedSection; index: number; error: FieldError }[] = [];
  private batch: Pending[] = [];
  private batchSection?: SeedSection;
  /** Batches being written, oldest first. */
  private writing: Promise<void>[] = [];

  constructor(
    private readonly tx: Tx,
    private readonly services: SeedServices,
    private readonly callbacks: boolean,
  ) {}

  /** Adds a valid record; resolves once it is taken (a full batch waits for the one before). */
  add(section: SeedSection, index: number, instance: unknown): Promise<void> | undefined {
    if (section === 'merchants') return this.merchant(index, instance as SeedMerchantDto);
    if (section === 'operators') return this.operator(index, instance as CreateOperatorDto);
    this.batchSection = section;
    this.batch.push({ index, instance });
    return this.batch.length >= BATCH_ROWS ? this.flush() : undefined;
  }

  /** The records the database refused, in file order (a section's records in index order). */
  get refused(): FieldError[] {
    const order = (r: (typeof this.refusals)[number]) => WRITE_RANK[r.section] * 2 ** 32 + r.index;
    return [...this.refusals].sort((a, b) => order(a) - order(b)).map((r) => r.error);
  }

  /** Writes what is left of the section; resolves when all of it is written. */
  async endSection(): Promise<void> {
    await this.flush();
    while (this.writing.length > 0) await this.writing.shift();
  }

  /** Stops writing: waits for the batches being written, forgets the rest and every count. */
  async abandon(): Promise<void> {
    this.batch = [];
    await Promise.allSettled(this.writing);
    this.writing = [];
    this.refusals.length = 0;
    this.summary.cryptoPairs.changed = 0;
    this.summary.merchants.changed = 0;
    this.summary.paymentSessions = { created: 0, updated: 0, unchanged: 0 };
    this.summary.operators.created = 0;
    this.summary.operators.changed = 0;
    this.summary.tokens = [];
  }

  /** Moves the catalog revision when pairs changed; the caller invalidates after commit. */
  async finish(): Promise<void> {
    await this.endSection();
    if (this.summary.cryptoPairs.changed > 0) await this.services.catalog.bumpRevision(this.tx);
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    const section = this.batchSection;
    this.batch = [];
    // Two batches queued on the connection at most: the database never waits for the next one.
    // Their records are distinct (duplicates are refused), so neither reads what the other writes.
    while (this.writing.length >= IN_FLIGHT) await this.writing.shift();
    if (batch.length === 0 || !section) return;
    const write =
      section === 'cryptoPairs'
        ? this.pairs(batch.map((p) => p.instance as CryptoPairInputDto))
        : this.sessions(batch);
    // Awaited by a later flush or endSection(); until then its failure is not "unhandled".
    write.catch(() => undefined);
    this.writing.push(write);
  }

  private async merchant(index: number, merchant: SeedMerchantDto): Promise<void> {
    await this.endSection();
    try {
      const changed = await this.services.merchants.upsertFromSeed(
        this.tx,
        merchant,
        merchant.apiKeys ?? [],
        merchant.callbackSecret,
      );
      if (changed) this.summary.merchants.changed++;
    } catch (error) {
      this.refuse('merchants', index, error);
    }
  }

  private async operator(index: number, operator: CreateOperatorDto): Promise<void> {
    await this.endSection();
    try {
      const { name, role } = operator;
      const seeded = await this.services.operators.upsertFromSeed(this.tx, name, role);
      if (seeded.outcome === 'created') {
        this.summary.operators.created++;
        this.summary.tokens.push({ name, role, token: seeded.token });
      }
      if (seeded.outcome === 'changed') this.summary.operators.changed++;
    } catch (error) {
      this.refuse('operators', index, error);
    }
  }

  private async pairs(pairs: CryptoPairInputDto[]): Promise<void> {
    // Counted once written: `x += await …` would add to the count read before another batch's.
    const changed = await this.services.catalog.upsertBatch(this.tx, pairs);
    this.summary.cryptoPairs.changed += changed;
  }

  private async sessions(batch: Pending[]): Promise<void> {
    const reports = batch.map(({ instance }) => {
      const { validationKey, createdAt, finalAt, ...report } = instance as SeedPaymentSessionDto;
      return { validationKey, report, times: { createdAt, finalAt } };
    });
    const results = await this.services.sessions.transition(this.tx, reports, {
      callbacks: this.callbacks,
      actor: { kind: 'seed' },
    });
    results.forEach((result, i) => {
      if (result instanceof ApiError) this.refuse('paymentSessions', batch[i].index, result);
      else this.summary.paymentSessions[result.outcome]++;
    });
  }

  private refuse(section: SeedSection, index: number, error: unknown): void {
    if (!(error instanceof ApiError)) throw error;
    const path = `${section}[${index}]`;
    for (const item of error.items) {
      const field = item.field ? `${path}.${item.field}` : path;
      this.refusals.push({ section, index, error: { field, message: item.message } });
    }
  }
}
