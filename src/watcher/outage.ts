import type { Logger } from 'pino';
import { describeError } from './watcher-log.js';

/**
 * One dependency's availability as the logs tell it: the first failed call of an outage writes
 * one line, the first call that succeeds after it writes one more; the attempts in between write
 * nothing.
 */
export class Outage {
  private since: number | undefined;
  private failedCalls = 0;

  constructor(
    private readonly logger: Logger,
    /** What the lines call the dependency: `node` or `gateway`. */
    private readonly dependency: 'node' | 'gateway',
    /** Where it is, in a form that may be logged (an origin). */
    private readonly where: string,
    private readonly now: () => number = Date.now,
  ) {}

  get down(): boolean {
    return this.since !== undefined;
  }

  failed(error: unknown): void {
    this.failedCalls += 1;
    if (this.since !== undefined) return;
    this.since = this.now();
    this.logger.warn(
      { dependency: this.dependency, url: this.where, err: describeError(error) },
      `${this.dependency === 'node' ? 'Node' : 'Gateway'} unavailable: retrying with backoff`,
    );
  }

  succeeded(): void {
    if (this.since === undefined) return;
    this.logger.info(
      {
        dependency: this.dependency,
        url: this.where,
        downMs: this.now() - this.since,
        failedCalls: this.failedCalls,
      },
      `${this.dependency === 'node' ? 'Node' : 'Gateway'} available again`,
    );
    this.since = undefined;
    this.failedCalls = 0;
  }
}
