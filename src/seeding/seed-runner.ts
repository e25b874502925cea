import { Injectable } from '@nestjs/common';
import { CatalogService } from '../catalog/catalog.service.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { OperatorService } from '../operators/operator.service.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import type { SeedFileDto } from './seed-file.dto.js';
import { SeedFileLoad } from './seed-file-load.js';
import { SILENT_PROGRESS, type SeedProgress } from './seed-progress.js';
import { SeedWriter, WRITE_ORDER, type SeedSummary } from './seed-writer.js';
import { SeedRejected } from './seed-file-load.js';

export { SeedRejected } from './seed-file-load.js';
export type { SeedSummary } from './seed-writer.js';

export interface SeedRunOptions {
  /** Runs everything, then rolls it all back: the same checks and summary, nothing written. */
  dryRun?: boolean;
  /** Runs first inside the same transaction (migrations, so that a refused file rolls them back too). */
  prepare?: (tx: Tx) => Promise<void>;
  /** Store the callbacks the sessions' transitions cause (off by default: seeding is quiet). */
  callbacks?: boolean;
  /** Told how the reading of a file goes. */
  progress?: SeedProgress;
}

/** Carries a dry run's summary out of the transaction it rolls back. */
class DryRunDone extends Error {
  constructor(readonly summary: SeedSummary) {
    super('dry run: rolled back');
  }
}

/**
 * Applies a seed file in one transaction, through the same services as the operator API: pairs
 * upsert by their triple, merchants by id, sessions go through the state machine. Any refused
 * record rolls everything back. A dry run is the same run, always rolled back, so it refuses
 * exactly what the real run would.
 */
@Injectable()
export class SeedRunner {
  constructor(
    private readonly transactions: Transactions,
    private readonly catalog: CatalogService,
    private readonly merchants: MerchantService,
    private readonly sessions: PaymentSessionService,
    private readonly operators: OperatorService,
  ) {}

  /** A seed already in memory and validated (validateSeed): the quick start's demo file, tests. */
  run(seed: SeedFileDto, options: SeedRunOptions = {}): Promise<SeedSummary> {
    return this.inTransaction(options, async (_tx, writer) => {
      writer.summary.cryptoPairs.given = seed.cryptoPairs?.length ?? 0;
      writer.summary.merchants.given = seed.merchants?.length ?? 0;
      writer.summary.operators.given = seed.operators?.length ?? 0;
      for (const name of WRITE_ORDER) {
        for (const [index, record] of (seed[name] ?? []).entries()) {
          await writer.add(name, index, record);
        }
        await writer.endSection();
      }
    });
  }

  /**
   * A seed file of any size, read once as a stream and checked as it is written (see
   * SeedFileLoad); throws SeedRejected naming every bad or refused record.
   */
  loadFile(file: string, size: number, options: SeedRunOptions = {}): Promise<SeedSummary> {
    const progress = options.progress ?? SILENT_PROGRESS;
    return this.inTransaction(options, (tx, writer) =>
      new SeedFileLoad(file, size, tx, writer, progress).run(),
    );
  }

  private async inTransaction(
    options: SeedRunOptions,
    work: (tx: Tx, writer: SeedWriter) => Promise<void>,
  ): Promise<SeedSummary> {
    try {
      return await this.transactions.run(async (tx) => {
        await options.prepare?.(tx);
        const writer = new SeedWriter(
          tx,
          {
            catalog: this.catalog,
            merchants: this.merchants,
            sessions: this.sessions,
            operators: this.operators,
          },
          options.callbacks ?? false,
        );
        try {
          await work(tx, writer);
        } catch (error) {
          await writer.abandon(); // no batch may still be in flight when the transaction ends
          throw error;
        }
        await writer.finish();
        if (writer.refused.length > 0) throw new SeedRejected(writer.refused);
        // Tokens of operators that were never written are no use to anyone: a dry run shows none.
        if (options.dryRun) throw new DryRunDone({ ...writer.summary, tokens: [] });
        return writer.summary;
      });
    } catch (error) {
      if (error instanceof DryRunDone) return error.summary;
      throw error;
    } finally {
      if (!options.dryRun) await this.catalog.invalidate();
    }
  }
}
