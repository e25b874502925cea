import type { Page, PageRequest } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import type { AuditEvent, StoredAuditEvent } from './audit-chain.js';

/** What the operator may filter the trail by; every field optional. */
export interface AuditFilter {
  /** An operator's id or name (`root`, `unknown` included). */
  operator?: string;
  action?: string;
  target?: string;
  /** ISO times, inclusive. */
  from?: string;
  to?: string;
}

/** The head of the chain, as a new event links to it. */
export type ChainHead = Pick<AuditEvent, 'seq' | 'hash'>;

/** Storage of the audit trail: appended to, read, never changed. */
export abstract class AuditRepository {
  /**
   * Appends the events `next` makes from the head of the chain (undefined: the chain is empty),
   * in order, inside the transaction, and returns them: the chain locked, its head read, the
   * events inserted.
   */
  async append(tx: Tx, next: (head: ChainHead | undefined) => AuditEvent[]): Promise<AuditEvent[]> {
    await this.lockChain(tx);
    const events = next(await this.last(tx));
    await this.insert(tx, events);
    return events;
  }

  /**
   * Reads what a later append of the transaction needs, where the transaction keeps what it read
   * (SQLite's group transactions: the chain's head); nothing where it does not.
   */
  async prepare(_tx: Tx): Promise<void> {}

  /**
   * Makes the transaction the only one appending until it ends (PostgreSQL: an advisory lock
   * shared by every instance; SQLite writes one transaction at a time anyway).
   */
  abstract lockChain(tx: Tx): Promise<void>;
  /** The last event of the chain (its head), and the key that linked it. */
  abstract last(tx: Tx): Promise<Pick<AuditEvent, 'seq' | 'hash' | 'at' | 'keyId'> | undefined>;
  abstract insert(tx: Tx, events: readonly AuditEvent[]): Promise<void>;
  /** Newest first, read afresh. */
  abstract list(filter: AuditFilter, page: PageRequest): Promise<Page<StoredAuditEvent>>;
  /** Events after `seq`, in chain order, at most `limit`. */
  abstract after(tx: Tx, seq: number, limit: number): Promise<StoredAuditEvent[]>;
  /**
   * How many rows the table holds numbered `through` or lower, whatever their number (below 1
   * too), and the lowest number among them: what a walk of the chain from 1 to `through` must
   * have read, every one of them.
   */
  abstract census(tx: Tx, through: number): Promise<{ rows: number; lowest: number | null }>;
}
