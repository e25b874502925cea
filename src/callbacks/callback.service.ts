import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../access/operator-call.js';
import { CallbackOutbox, shownCallbackUrl, type NewCallback } from './callback-outbox.js';
import { AttemptRecord, CallbackRecord, CallbackRepository } from './callback.repository.js';
import { CallbackSender } from './callback-sender.js';
import { CallbackViewDto } from './dto/callback-view.dto.js';

/** Random bytes of a webhook id (`msg_` and their base64url: Standard Webhooks' message id). */
const WEBHOOK_ID_BYTES = 18;

/**
 * The callbacks of payment sessions: stored with the transitions that cause them, listed and
 * redelivered by the operator, delivered by the CallbackDispatcher of some instance.
 */
@Injectable()
export class CallbackService extends CallbackOutbox {
  /** Told when a callback may have become due here, so it need not wait for the next poll. */
  private wake?: () => void;

  constructor(
    private readonly callbacks: CallbackRepository,
    private readonly transactions: Transactions,
    private readonly sender: CallbackSender,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditTrail,
  ) {
    super();
  }

  onDue(wake: () => void): void {
    this.wake = wake;
  }

  async enqueue(tx: Tx, callbacks: readonly NewCallback[]): Promise<void> {
    if (callbacks.length === 0) return;
    const now = Date.now();
    // One call for the random bytes of every webhook id: each call is a synchronous job of its own.
    const random = randomBytes(WEBHOOK_ID_BYTES * callbacks.length);
    const webhookId = (i: number) =>
      `msg_${random.subarray(i * WEBHOOK_ID_BYTES, (i + 1) * WEBHOOK_ID_BYTES).toString('base64url')}`;
    await this.callbacks.insert(
      tx,
      callbacks.map((callback, i) => ({
        ...callback,
        id: randomUUID(),
        webhookId: webhookId(i),
        state: 'pending',
        attempts: 0,
        firstAttemptAt: null,
        nextAttemptAt: now,
        leaseOwner: null,
        leaseUntil: null,
        stateAfterRedelivery: null,
      })),
    );
    // After the transaction commits (it is still open now), the dispatcher finds it.
    setTimeout(() => this.wake?.(), 20).unref();
  }

  urlRefusal(url: string): string | undefined {
    return this.sender.urlRefusal(url);
  }

  async rewriteBodies(
    tx: Tx,
    validationKey: string,
    rewrite: (body: string) => string | undefined,
  ): Promise<void> {
    for (const { id, body } of await this.callbacks.bodiesOf(tx, validationKey)) {
      const rewritten = rewrite(body);
      if (rewritten !== undefined) await this.callbacks.setBody(tx, id, rewritten);
    }
  }

  /** The session's callbacks, oldest first. */
  async list(validationKey: string): Promise<CallbackViewDto[]> {
    const callbacks = await this.callbacks.listForSession(validationKey);
    return callbacks.map((c) => toView(c, c.attemptList));
  }

  /**
   * One more attempt, now: of a pending callback (sooner than its schedule), or of a delivered or
   * failed one, which returns to its state if that attempt fails.
   */
  async redeliver(id: string, call?: OperatorCall): Promise<CallbackViewDto> {
    const view = await this.transactions.run(async (tx) => {
      const callback = await this.callbacks.find(tx, id);
      if (!callback) {
        throw new ApiError('NOT_FOUND', { message: `Callback ${id} not found.`, field: 'id' });
      }
      const changes = {
        state: 'pending' as const,
        nextAttemptAt: Date.now(),
        stateAfterRedelivery: callback.state === 'pending' ? null : callback.state,
      };
      await this.callbacks.setDue(tx, id, changes);
      await this.audit.record(tx, call, {
        target: id,
        changes: {
          state: { old: callback.state, new: 'pending' },
          nextAttemptAt: {
            old:
              callback.state === 'pending' ? new Date(callback.nextAttemptAt).toISOString() : null,
            new: new Date(changes.nextAttemptAt).toISOString(),
          },
        },
      });
      return toView({ ...callback, ...changes }, await this.callbacks.attemptsOf(tx, id));
    });
    setTimeout(() => this.wake?.(), 20).unref();
    return view;
  }

  /** How long this instance waits for an answer: attempts never outlive their lease. */
  get timeoutMs(): number {
    return this.config.callbacks.timeoutMs;
  }
}

function toView(callback: CallbackRecord, attempts: AttemptRecord[]): CallbackViewDto {
  return {
    id: callback.id,
    webhookId: callback.webhookId,
    status: callback.status,
    url: shownCallbackUrl(callback.url),
    state: callback.state,
    attempts: attempts.map((a) => ({
      at: new Date(a.at).toISOString(),
      ...(a.httpStatus === null ? {} : { httpStatus: a.httpStatus }),
      ...(a.error === null ? {} : { error: a.error }),
      durationMs: a.durationMs,
    })),
    ...(callback.state === 'pending'
      ? { nextAttemptAt: new Date(callback.nextAttemptAt).toISOString() }
      : {}),
  };
}
