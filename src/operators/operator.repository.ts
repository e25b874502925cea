import type { Page, PageRequest } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import type { OperatorRole } from '../access/operator-role.js';

/** An operator as stored. */
export interface OperatorRecord {
  id: string;
  name: string;
  role: OperatorRole;
  tokenHash: string;
  createdAt: Date;
  revokedAt: string | null;
  lastUsedAt: number | null;
}

/** A working token's operator. */
export interface ActiveOperator {
  id: string;
  name: string;
  role: OperatorRole;
}

/** Storage of operators. */
export abstract class OperatorRepository {
  /** The operator of a token that works (by the token's hash); outside any transaction. */
  abstract findActive(tokenHash: string): Promise<ActiveOperator | undefined>;
  /**
   * The revoked operator whose token this was (by its hash), to name them when it is tried again;
   * outside any transaction.
   */
  abstract findRevoked(tokenHash: string): Promise<{ id: string; name: string } | undefined>;
  abstract find(tx: Tx, id: string): Promise<OperatorRecord | undefined>;
  /** The operator of this name, whatever its case, that has not been revoked, if any. */
  abstract findActiveByName(tx: Tx, name: string): Promise<OperatorRecord | undefined>;
  abstract insert(tx: Tx, operator: OperatorRecord): Promise<void>;
  abstract setRole(tx: Tx, id: string, role: OperatorRole): Promise<void>;
  abstract revoke(tx: Tx, id: string, at: string): Promise<void>;
  abstract touch(tx: Tx, id: string, at: number): Promise<void>;
  /** Oldest first (by createdAt, then id), read afresh. */
  abstract list(page: PageRequest): Promise<Page<OperatorRecord>>;
}
