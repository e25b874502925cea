import { Injectable } from '@nestjs/common';
import { ServiceState } from '../common/service-state.js';
import { Transactions } from './transactions.js';
import { managerOf } from './typeorm-transactions.js';

/**
 * While the database refuses writes, the readiness check asks it again with the smallest write
 * there is (one row of `write_probe`); the commit, if it succeeds, clears the refusal
 * (WriteHealth). Probes do not pile up: callers during a probe share it.
 */
/** How long readiness waits for the probe's commit (as long as its ping of the database). */
const PROBE_TIMEOUT_MS = 2000;

@Injectable()
export class WriteProbe {
  private pending?: Promise<boolean>;

  constructor(
    private readonly transactions: Transactions,
    private readonly state: ServiceState,
  ) {}

  /**
   * True when the database takes writes (known, or just probed); false when the probe has not
   * answered within PROBE_TIMEOUT_MS (readiness answers at once, whatever the writes wait for).
   */
  writable(): Promise<boolean> {
    if (!this.state.writesRefused) return Promise.resolve(true);
    this.pending ??= this.probe().finally(() => (this.pending = undefined));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    });
    return Promise.race([this.pending, late]).finally(() => clearTimeout(timer));
  }

  private async probe(): Promise<boolean> {
    try {
      await this.transactions.run((tx) =>
        managerOf(tx).query(
          'INSERT INTO write_probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = excluded.at',
          [Date.now()],
        ),
      );
      return !this.state.writesRefused;
    } catch {
      return false;
    }
  }
}
