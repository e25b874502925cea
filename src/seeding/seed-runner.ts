import { Injectable } from '@nestjs/common';
import { CatalogService } from '../catalog/catalog.service.js';
import { ApiError } from '../common/errors/api-error.js';
import type { FieldError } from '../common/validation.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { PaymentSessionService, ReportOutcome } from '../payment-status/payment-session.service.js';
import { SeedFileDto } from './seed-file.dto.js';

export interface SeedSummary {
  cryptoPairs: { given: number; changed: number };
  merchants: { given: number; changed: number };
  paymentSessions: Record<ReportOutcome, number>;
}

export interface SeedRunOptions {
  /** Runs everything, then rolls it all back: the same checks and summary, nothing written. */
  dryRun?: boolean;
  /** Runs first inside the same transaction (a dry run migrates here, so that rolls back too). */
  prepare?: (tx: Tx) => Promise<void>;
  /** Store the callbacks the sessions' transitions cause (off by default: seeding is quiet). */
  callbacks?: boolean;
}

/** Records the database refused while applying (a final session asked to change, say). */
export class SeedRejected extends Error {
  constructor(readonly errors: FieldError[]) {
    super(`${errors.length} record(s) refused`);
  }
}

/** Carries a dry run's summary out of the transaction it rolls back. */
class DryRunDone extends Error {
  constructor(readonly summary: SeedSummary) {
    super('dry run: rolled back');
  }
}

/**
 * Applies a validated seed file in one transaction, through the same services as the operator
 * API: pairs upsert by their triple, merchants by id, sessions go through the state machine.
 * Any refused record rolls everything back. A dry run is the same run, always rolled back, so it
 * refuses exactly what the real run would.
 */
@Injectable()
export class SeedRunner {
  constructor(
    private readonly transactions: Transactions,
    private readonly catalog: CatalogService,
    private readonly merchants: MerchantService,
    private readonly sessions: PaymentSessionService,
  ) {}

  async run(seed: SeedFileDto, options: SeedRunOptions = {}): Promise<SeedSummary> {
    try {
      return await this.transactions.run(async (tx) => {
        await options.prepare?.(tx);
        const summary = await this.apply(tx, seed, options.callbacks ?? false);
        if (options.dryRun) throw new DryRunDone(summary);
        return summary;
      });
    } catch (error) {
      if (error instanceof DryRunDone) return error.summary;
      throw error;
    } finally {
      if (!options.dryRun) await this.catalog.invalidate();
    }
  }

  /** Every record inside the caller's transaction; throws SeedRejected naming each refused one. */
  private async apply(tx: Tx, seed: SeedFileDto, callbacks: boolean): Promise<SeedSummary> {
    const summary: SeedSummary = {
      cryptoPairs: { given: seed.cryptoPairs?.length ?? 0, changed: 0 },
      merchants: { given: seed.merchants?.length ?? 0, changed: 0 },
      paymentSessions: { created: 0, updated: 0, unchanged: 0 },
    };
    const errors: FieldError[] = [];
    const refuse = (path: string) => (error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      for (const item of error.items) {
        errors.push({ field: item.field ? `${path}.${item.field}` : path, message: item.message });
      }
    };
    for (const [index, merchant] of (seed.merchants ?? []).entries()) {
      await this.merchants
        .upsertFromSeed(tx, merchant, merchant.apiKeys ?? [], merchant.callbackSecret)
        .then((changed) => (summary.merchants.changed += changed ? 1 : 0))
        .catch(refuse(`merchants[${index}]`));
    }
    summary.cryptoPairs.changed = await this.catalog.upsertAll(tx, seed.cryptoPairs ?? []);
    for (const [index, session] of (seed.paymentSessions ?? []).entries()) {
      const { validationKey, ...report } = session;
      await this.sessions
        .apply(tx, validationKey, report, { callbacks })
        .then(({ outcome }) => summary.paymentSessions[outcome]++)
        .catch(refuse(`paymentSessions[${index}]`));
    }
    if (errors.length > 0) throw new SeedRejected(errors);
    return summary;
  }
}
