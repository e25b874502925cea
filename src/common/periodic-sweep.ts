import type { BeforeApplicationShutdown } from '@nestjs/common';

/**
 * Work done now, then again every `everyMs` after the previous run ended: the sweeps that expire
 * checkouts (src/checkout/checkout-expiry.ts) and erase personal data past retention
 * (src/payment-status/personal-data-retention.ts). Runs never overlap (a sweep asked for while
 * one runs gets that one), the timer never holds the process open, and shutdown stops the timer
 * and waits for the run under way, before the database's own shutdown hooks (DatabaseModule is
 * global: Nest runs its hooks after those of the feature modules). `@nestjs/schedule` is not used:
 * its decorators fix the interval when the class is declared, and these start only after the
 * migrations, with an interval from the configuration (docs/decisions.md, "Sweeps").
 */
export abstract class PeriodicSweep implements BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  /** Set at shutdown: a run under way stops after its current batch. */
  protected stopped = false;

  /** Does what is due at `now`, batch after batch while not stopped; how many items it handled. */
  protected abstract due(now: number): Promise<number>;

  /** Starts sweeping every `everyMs` (the schema must be in place: after migrations). */
  protected startEvery(everyMs: number): void {
    if (this.stopped) return;
    const run = () => {
      const next = () => {
        if (!this.stopped) this.timer = setTimeout(run, everyMs).unref();
      };
      // A run that failed has said so itself (its log line); the next one still comes.
      this.sweep().then(next, next);
    };
    run();
  }

  /** Does what is due now; the run under way if there is one. */
  sweep(now = Date.now()): Promise<number> {
    this.running ??= this.due(now).finally(() => (this.running = undefined));
    return this.running;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
