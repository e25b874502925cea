import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { redactValidationKey } from '../common/masking.js';
import { ServiceState } from '../common/service-state.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { isDatabaseUnavailable } from '../database/dialect.js';
import { Transactions, allStatements } from '../database/transactions.js';
import { CallbackSecretService } from '../merchants/callback-secret.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import {
  AttemptRecord,
  AttemptResult,
  CallbackRecord,
  CallbackRepository,
} from './callback.repository.js';
import { CallbackSender, DeliveryResult } from './callback-sender.js';
import { CallbackService } from './callback.service.js';
import { afterAttempt } from './retry-schedule.js';
import { DeliveryLanes } from './delivery-lanes.js';

/** The longest wait between two looks for due callbacks. */
const POLL_INTERVAL_MS = 200;
/** A lease outlives its attempt's time limit by this much, so an attempt never outlives its lease. */
export const LEASE_MARGIN_MS = 5000;
/** How often the callback counts by state are refreshed for the metrics. */
const STATE_COUNT_INTERVAL_MS = 2000;

/**
 * The dispatcher's transactions are short and few (one claim, one record per batch of attempts):
 * on SQLite they go ahead of the writes waiting, so a burst of transitions does not hold back
 * the delivery of the callbacks it causes.
 */
const AHEAD = { ahead: true };

/** An attempt made, waiting to be recorded. */
interface FinishedAttempt {
  callback: CallbackRecord;
  attempt: AttemptRecord;
  next: AttemptResult;
  resolve: (recorded: boolean) => void;
}

/**
 * Delivers due callbacks from this instance. Each is claimed under a lease in a transaction
 * (`FOR UPDATE SKIP LOCKED` on PostgreSQL), so with several instances each attempt is made by
 * exactly one of them; a lease left by an instance that died expires and another one takes the
 * callback over. Every attempt is recorded. How many attempts run at once, and whose, is
 * DeliveryLanes' share: a few per merchant, and slow receivers only among themselves, so that one
 * merchant's hanging receiver never holds back another merchant's callbacks. On shutdown no new
 * callback is claimed, attempts in flight may finish until the deadline, and what is left is
 * released at once for another instance (or the next start): an attempt cut off is retried, never
 * lost.
 */
@Injectable()
export class CallbackDispatcher implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Callbacks');
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly lanes = new DeliveryLanes();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private stopped = false;
  private lastStateCount = 0;
  private readonly unrecorded: FinishedAttempt[] = [];
  private recording = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly callbacks: CallbackRepository,
    private readonly service: CallbackService,
    private readonly sender: CallbackSender,
    private readonly secrets: CallbackSecretService,
    private readonly transactions: Transactions,
    private readonly state: ServiceState,
    private readonly metrics: MetricsService,
  ) {}

  /** Starts delivering; the schema must be in place (after migrations). */
  start(): void {
    if (!this.config.callbacks.enabled || this.stopped) return;
    this.service.onDue(() => this.schedule(0));
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.inFlight.size > 0) {
      const left = Math.max(0, (this.state.shutdownDeadline ?? Date.now()) - Date.now());
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight.values()]),
        new Promise((resolve) => (timer = setTimeout(resolve, left))),
      ]);
      clearTimeout(timer);
    }
    await this.transactions
      .run((tx) => this.callbacks.releaseLeases(tx, this.owner))
      .catch((error: unknown) => this.logger.warn(`Could not release leases: ${String(error)}`));
    await this.sender.close();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped || this.state.draining) return;
    this.ticking = true;
    let next = POLL_INTERVAL_MS;
    try {
      const now = Date.now();
      const plan = this.lanes.plan(now);
      if (plan.limit > 0) {
        const lease = now + this.config.callbacks.timeoutMs + LEASE_MARGIN_MS;
        let offered = 0;
        const claimed = await this.transactions.run(
          (tx) =>
            this.callbacks.claimDue(tx, this.owner, now, lease, {
              ...plan,
              pick: (due) => ((offered = due.length), plan.pick(due)),
            }),
          AHEAD,
        );
        for (const callback of claimed) this.launch(callback);
        // More may be due: those past this claim's limit, or of merchants it passed over (now at
        // their share, so the next claim leaves them out).
        if (claimed.length > 0 && (offered === plan.limit || claimed.length < offered)) next = 0;
      }
      await this.countStates();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) this.logger.error(`Dispatch failed: ${String(error)}`);
    } finally {
      this.ticking = false;
      this.schedule(next);
    }
  }

  private launch(callback: CallbackRecord): void {
    this.lanes.started(callback.id, callback.merchantId, Date.now());
    const attempt = this.attempt(callback).finally(() => {
      // Ended already when the attempt ran to its end; here only if it failed before that.
      this.lanes.ended(callback.id, { durationMs: 0, timedOut: false }, Date.now());
      this.inFlight.delete(callback.id);
      this.schedule(0);
    });
    this.inFlight.set(callback.id, attempt);
  }

  private async attempt(callback: CallbackRecord): Promise<void> {
    const at = Date.now();
    let result: DeliveryResult;
    try {
      const secrets = await this.secrets.signingSecrets(callback.merchantId, at);
      result = await this.sender.send(callback, secrets, new Date(at));
    } catch (error) {
      result = { outcome: 'error', error: 'could not be sent', durationMs: Date.now() - at };
      this.logger.error(`Callback ${callback.webhookId} not sent: ${String(error)}`);
    }
    this.lanes.ended(
      callback.id,
      { durationMs: result.durationMs, timedOut: result.outcome === 'timeout' },
      Date.now(),
    );
    const next = afterAttempt(
      callback,
      result.outcome === 'delivered',
      Date.now(),
      this.config.callbacks.retrySchedule,
    );
    const recorded = await this.record({
      callback,
      attempt: {
        at,
        httpStatus: result.httpStatus ?? null,
        error: result.error ?? null,
        durationMs: result.durationMs,
      },
      next,
    });
    this.metrics.recordCallbackAttempt(result.durationMs / 1000, result.outcome);
    const line = {
      webhookId: callback.webhookId,
      validationKey: redactValidationKey(callback.validationKey),
      host: new URL(callback.url).host,
      attempt: next.attempts,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      durationMs: result.durationMs,
      state: recorded ? next.state : undefined,
    };
    const message = `Callback ${callback.webhookId} ${result.outcome}${recorded ? `, now ${next.state}` : ''}`;
    if (result.outcome === 'delivered') this.logger.log(line, message);
    else this.logger.warn(line, message);
  }

  /**
   * Records a finished attempt; resolves with false when it could not be (the lease was lost, or
   * the database failed: the lease expires and the attempt is made again, at least once).
   * Attempts finishing together are recorded in one transaction, the next batch gathering while
   * one commits: on SQLite every write transaction waits its turn, so one per attempt would let a
   * burst of callbacks queue behind each other's bookkeeping.
   */
  private record(finished: Omit<FinishedAttempt, 'resolve'>): Promise<boolean> {
    return new Promise((resolve) => {
      this.unrecorded.push({ ...finished, resolve });
      if (!this.recording) void this.recordBatches();
    });
  }

  private async recordBatches(): Promise<void> {
    this.recording = true;
    while (this.unrecorded.length > 0) {
      const batch = this.unrecorded.splice(0);
      const recorded = await this.transactions
        .run(
          (tx) =>
            allStatements(
              batch.map(({ callback, attempt, next }) =>
                this.callbacks.finishAttempt(tx, callback.id, this.owner, attempt, next),
              ),
            ),
          AHEAD,
        )
        .catch((error: unknown) => {
          const ids = batch.map(({ callback }) => callback.webhookId).join(', ');
          this.logger.warn(`Attempts of ${ids} not recorded: ${String(error)}`);
          return batch.map(() => false);
        });
      batch.forEach(({ resolve }, i) => resolve(recorded[i]));
    }
    this.recording = false;
  }

  private async countStates(): Promise<void> {
    if (Date.now() - this.lastStateCount < STATE_COUNT_INTERVAL_MS) return;
    this.lastStateCount = Date.now();
    const counts = await this.transactions.run((tx) => this.callbacks.countByState(tx));
    this.metrics.setCallbackStates(counts);
  }
}
