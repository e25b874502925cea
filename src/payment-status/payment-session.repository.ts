import type { Tx } from '../database/transactions.js';
import type { StoredReport } from './payment-status.shapes.js';
import type { PaymentStatus } from './payment-status.types.js';

/** A payment session as stored. */
/** Where the merchant is called back; never part of what the status lookup shows. */
export interface CallbackUrls {
  returnUrl: string | null;
  errorUrl: string | null;
}

export interface SessionRecord extends StoredReport, CallbackUrls {
  validationKey: string;
  merchantId: string;
  /** Grows by one on every transition; conditional updates on it make concurrent reports safe. */
  version: number;
}

/** One transition of a session: which version it produced, from which status to which. */
export interface TransitionRecord {
  version: number;
  fromStatus: PaymentStatus | null;
  toStatus: PaymentStatus;
  detailedStatus: string | null;
  at: Date;
}

/** Storage of payment sessions and their transitions. */
export abstract class PaymentSessionRepository {
  /** The session by key, read on the hot path (outside any transaction). */
  abstract find(validationKey: string): Promise<SessionRecord | undefined>;

  /** The session by key, inside a transaction. */
  abstract findIn(tx: Tx, validationKey: string): Promise<SessionRecord | undefined>;

  /** Inserts a new session; false when a session with this key exists already. */
  abstract insert(tx: Tx, session: SessionRecord): Promise<boolean>;

  /**
   * Stores the next report and moves the version on by one, only if the stored version is still
   * `expectedVersion`; false when another writer moved it first.
   */
  abstract updateIfVersion(
    tx: Tx,
    validationKey: string,
    expectedVersion: number,
    next: StoredReport & CallbackUrls,
  ): Promise<boolean>;

  abstract addTransition(
    tx: Tx,
    validationKey: string,
    transition: Omit<TransitionRecord, 'at'>,
  ): Promise<void>;

  /** Every transition of the session, oldest first; empty for an unknown key. */
  abstract history(validationKey: string): Promise<TransitionRecord[]>;

  /**
   * Sessions final since `finalBefore` (epoch ms) or earlier whose personal data has not been
   * erased, oldest first, at most `limit`; locked for this transaction where several instances
   * could claim the same ones (PostgreSQL skips those another holds).
   */
  abstract dueForErasure(
    tx: Tx,
    finalBefore: number,
    limit: number,
  ): Promise<Pick<SessionRecord, 'validationKey' | 'paymentResponse'>[]>;

  /** Stores the payment response without its personal data, and when it was erased. */
  abstract storeErasure(
    tx: Tx,
    validationKey: string,
    paymentResponse: string | null,
    erasedAt: number,
  ): Promise<void>;
}
