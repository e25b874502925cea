import type { Tx } from '../database/transactions.js';
import type { CallbackState } from './callback.entity.js';
import type { ClaimPlan } from './delivery-lanes.js';

export interface CallbackRecord {
  id: string;
  webhookId: string;
  validationKey: string;
  merchantId: string;
  status: string;
  url: string;
  body: string;
  state: CallbackState;
  attempts: number;
  firstAttemptAt: number | null;
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  stateAfterRedelivery: CallbackState | null;
}

export interface AttemptRecord {
  at: number;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** What an attempt changes on its callback. */
export type AttemptResult = Pick<
  CallbackRecord,
  'state' | 'attempts' | 'firstAttemptAt' | 'nextAttemptAt' | 'stateAfterRedelivery'
>;

/** Storage of callbacks (the outbox) and their attempts. Times are epoch milliseconds. */
export abstract class CallbackRepository {
  abstract insert(tx: Tx, callbacks: readonly CallbackRecord[]): Promise<void>;

  /**
   * Claims pending callbacks due at `now` whose lease is free or expired, for `owner` until
   * `leaseUntil`: no two instances hold the same callback at once. Up to `plan.limit` are offered
   * (oldest due first, none of a merchant `plan.exclude` names), and those `plan.pick` chooses
   * among them are leased.
   */
  abstract claimDue(
    tx: Tx,
    owner: string,
    now: number,
    leaseUntil: number,
    plan: Pick<ClaimPlan, 'limit' | 'exclude' | 'pick'>,
  ): Promise<CallbackRecord[]>;

  /**
   * Records an attempt and its result, only while `owner` still holds the lease (an instance that
   * lost it, having run past it, records nothing). False when the lease was lost.
   */
  abstract finishAttempt(
    tx: Tx,
    id: string,
    owner: string,
    attempt: AttemptRecord,
    result: AttemptResult,
  ): Promise<boolean>;

  /** Frees the leases `owner` holds, so that another instance may take them over at once. */
  abstract releaseLeases(tx: Tx, owner: string): Promise<void>;

  abstract find(tx: Tx, id: string): Promise<CallbackRecord | undefined>;

  /** Makes the callback due now (for a delivered or failed one, for one more attempt). */
  abstract setDue(
    tx: Tx,
    id: string,
    changes: Pick<CallbackRecord, 'state' | 'nextAttemptAt' | 'stateAfterRedelivery'>,
  ): Promise<void>;

  /** The session's callbacks, oldest first, each with its attempts, oldest first; read afresh. */
  abstract listForSession(
    validationKey: string,
  ): Promise<(CallbackRecord & { attemptList: AttemptRecord[] })[]>;

  /** The callback's attempts, oldest first, inside the caller's transaction. */
  abstract attemptsOf(tx: Tx, id: string): Promise<AttemptRecord[]>;

  abstract countByState(tx: Tx): Promise<Record<CallbackState, number>>;

  /** The bodies of the session's callbacks, by callback id. */
  abstract bodiesOf(tx: Tx, validationKey: string): Promise<{ id: string; body: string }[]>;

  abstract setBody(tx: Tx, id: string, body: string): Promise<void>;
}
