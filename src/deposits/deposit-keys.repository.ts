import type { Tx } from '../database/transactions.js';
import type { DepositNetwork } from './networks.js';

/** A merchant's watch-only account key as stored. */
export interface DepositKeyRecord {
  id: number;
  merchantId: string;
  network: DepositNetwork;
  extendedPublicKey: string;
  /** The account's public key (hex): two texts of one key are the same key. */
  publicKey: string;
  fingerprint: string;
  /** The merchant's current key for its network. */
  active: boolean;
  /** Addresses given so far: the next index to give. */
  nextIndex: number;
  /** The highest index whose address received a deposit; -1 while none did. */
  fundedThrough: number;
  createdAt: number;
}

/** The gap of a merchant's current key for a network (see gapOf). */
export interface KeyGap {
  merchantId: string;
  network: DepositNetwork;
  gap: number;
}

/** Storage of merchants' deposit keys and their index sequences. */
export abstract class DepositKeyRepository {
  /** The merchant's current keys (at most one per network), read afresh. */
  abstract currentOf(merchantId: string): Promise<DepositKeyRecord[]>;

  abstract currentIn(
    tx: Tx,
    merchantId: string,
    network: DepositNetwork,
  ): Promise<DepositKeyRecord | undefined>;

  /** The key with this account public key, whoever holds it, current or not. */
  abstract findByPublicKeyIn(tx: Tx, publicKey: string): Promise<DepositKeyRecord | undefined>;

  /** Stores a new key; its id. Throws a unique violation when the key or a current one exists. */
  abstract insert(tx: Tx, key: Omit<DepositKeyRecord, 'id'>): Promise<number>;

  /** Makes the key current again (after it was replaced or removed). */
  abstract activate(tx: Tx, id: number): Promise<void>;

  /** The merchant has no current key for the network any more. */
  abstract deactivate(tx: Tx, merchantId: string, network: DepositNetwork): Promise<void>;

  /**
   * Takes the key's next index and moves its counter on, inside the caller's transaction: the
   * row stays locked to it until it ends (PostgreSQL), so concurrent assignments queue, and an
   * assignment rolled back gives its index back.
   */
  abstract takeIndex(tx: Tx, id: number): Promise<number>;

  /** Records that the address at `index` received a deposit. */
  abstract funded(tx: Tx, id: number, index: number): Promise<void>;

  /** The gap of every merchant's current key, read afresh (for /metrics). */
  abstract gaps(): Promise<KeyGap[]>;
}

/**
 * The gap of a key: its consecutive newest addresses that never received a deposit. A restored
 * wallet stops looking after its gap limit (20 in most wallets) of unused addresses.
 */
export function gapOf(key: Pick<DepositKeyRecord, 'nextIndex' | 'fundedThrough'>): number {
  return key.nextIndex - 1 - key.fundedThrough;
}

/** Wallets' usual gap limit: from this gap on, a warning (log line, the merchant's view). */
export const GAP_LIMIT = 20;
