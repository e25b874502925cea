import type { Tx } from '../database/transactions.js';
import type { StoredReport } from './payment-status.shapes.js';
import type { PaymentStatus } from './payment-status.types.js';
import type { Actor } from './actor.js';

/** Where the merchant is called back; never part of what the status lookup shows. */
export interface CallbackUrls {
  returnUrl: string | null;
  errorUrl: string | null;
}

/** A payment session as stored. */
export interface SessionRecord extends StoredReport, CallbackUrls {
  validationKey: string;
  merchantId: string;
  /** Grows by one on every transition; conditional updates on it make concurrent reports safe. */
  version: number;
  /** When its personal data was erased (epoch ms); null or absent while it is kept. */
  personalDataErasedAt?: number | null;
}

/** Times a seed file gives a session moved from another system. */
export interface SeededTimes {
  validationKey: string;
  /** When the session was created (ISO); null: as stored. */
  createdAt: string | null;
  /** When it became final (epoch ms); null: as stored. */
  finalAt: number | null;
}

/** One transition of a session: which version it produced, from which status to which. */
export interface TransitionRecord {
  version: number;
  fromStatus: PaymentStatus | null;
  toStatus: PaymentStatus;
  detailedStatus: string | null;
  /** Who made it; null for transitions stored before the service kept it. */
  actor: Actor | null;
  at: Date;
}

/** The next report of a session, stored only if its version is still `expectedVersion`. */
export interface SessionUpdate {
  validationKey: string;
  expectedVersion: number;
  next: StoredReport & CallbackUrls;
}

/** A session to create, and who creates it. */
export interface NewSession {
  session: SessionRecord;
  createdBy?: Actor;
}

/** A transition to record, and whose it is. */
export type NewTransition = Omit<TransitionRecord, 'at'> & { validationKey: string };

/** A session as the operator's list and detail show it. */
export interface ListedSession extends SessionRecord {
  /** Epoch ms; null only for a session whose creation time was never known. */
  createdAtMs: number | null;
  createdBy: Actor | null;
}

/** Which sessions the operator lists: newest first, after the cursor's session when given. */
export interface SessionListQuery {
  merchantId?: string;
  status?: PaymentStatus;
  /** Created at or after (epoch ms). */
  createdFrom?: number;
  /** Created before (epoch ms). */
  createdTo?: number;
  after?: { createdAtMs: number; validationKey: string };
  limit: number;
}

/**
 * Storage of payment sessions and their transitions. Provided by TypeOrmPaymentSessionRepository
 * (typeorm-payment-session.repository.ts; bound in payment-status.module.ts).
 */
export abstract class PaymentSessionRepository {
  /**
   * The session by key, read on the hot path (outside any transaction): batched with the keys
   * asked at the same time, see TypeOrmPaymentSessionRepository.lookUp.
   */
  abstract lookUp(validationKey: string): Promise<SessionRecord | undefined>;

  /** The session by key, inside a transaction. */
  abstract findIn(tx: Tx, validationKey: string): Promise<SessionRecord | undefined>;

  /** The sessions among `validationKeys` that exist, by key, inside a transaction. */
  abstract findManyIn(tx: Tx, validationKeys: string[]): Promise<Map<string, SessionRecord>>;

  /**
   * Inserts new sessions, each with who created it; returns how many were inserted (fewer than
   * given when another writer took some of the keys first).
   */
  abstract insertMany(tx: Tx, sessions: readonly NewSession[]): Promise<number>;

  /**
   * Stores the next report of each session and moves its version on by one, only where the
   * stored version is still the one expected; returns how many were updated (fewer than given
   * when another writer moved some first).
   */
  abstract updateManyIfVersion(tx: Tx, updates: SessionUpdate[]): Promise<number>;

  abstract addTransitions(tx: Tx, transitions: NewTransition[]): Promise<void>;

  /** Every transition of the session, oldest first; empty for an unknown key. */
  abstract history(validationKey: string): Promise<TransitionRecord[]>;

  /** Gives sessions the times a seed file carries (created, became final). */
  abstract setSeededTimes(tx: Tx, times: SeededTimes[]): Promise<void>;

  /** Sessions newest first (ties by key, descending), filtered, at most `limit`. */
  abstract list(query: SessionListQuery): Promise<ListedSession[]>;

  /** One session with its creation, read afresh. */
  abstract findListed(validationKey: string): Promise<ListedSession | undefined>;

  /**
   * Sessions final since `finalBefore` (epoch ms) or earlier that hold personal data, oldest
   * first, at most `limit`; locked for this transaction where several instances could claim the
   * same ones (PostgreSQL skips those another holds).
   */
  abstract dueForErasure(
    tx: Tx,
    finalBefore: number,
    limit: number,
  ): Promise<Pick<SessionRecord, 'validationKey' | 'paymentResponse'>[]>;

  /**
   * Stores the payment response without its personal data, and when it was erased (null when it
   * held none: the time of an earlier erasure, if any, stays).
   */
  abstract storeErasure(
    tx: Tx,
    validationKey: string,
    paymentResponse: string | null,
    erasedAt: number | null,
  ): Promise<void>;
}
