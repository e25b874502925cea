import type { Page, PageRequest } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import type { ResolvedKey } from '../access/access-ports.js';

export type { ResolvedKey };

export interface MerchantRecord {
  id: string;
  name: string;
}

/** A merchant as the operator's list shows it. */
export interface ListedMerchant extends MerchantRecord {
  createdAt: Date;
}

/** An API key as stored: only the SHA-256 hash of its plaintext, and its last 4 characters. */
export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  keyHash: string;
  createdAt: Date;
  /** ISO time of revocation; null while the key works. */
  revokedAt: string | null;
  /** Last 4 characters of the plaintext; null for keys stored before they were kept. */
  last4: string | null;
}

/** A merchant's callback secrets, encrypted, and when the current one replaced the previous. */
export interface StoredCallbackSecrets {
  current: string | null;
  previous: string | null;
  rotatedAt: number | null;
}

/** Storage of merchants and their API keys. */
export abstract class MerchantRepository {
  /** The unrevoked key with this hash, read on the hot path (outside any transaction). */
  abstract findActiveKey(keyHash: string): Promise<ResolvedKey | undefined>;

  /** True while the merchant has a key that works. */
  abstract hasActiveKey(merchantId: string): Promise<boolean>;

  abstract find(tx: Tx, id: string): Promise<MerchantRecord | undefined>;

  /** Merchants ordered by id, read afresh. */
  abstract list(page: PageRequest): Promise<Page<ListedMerchant>>;

  /** Inserts a merchant; false when one with this id exists already. */
  abstract insert(tx: Tx, merchant: MerchantRecord): Promise<boolean>;

  abstract rename(tx: Tx, id: string, name: string): Promise<void>;

  /** Origins besides those of a session's callback URLs that may frame its checkout page. */
  abstract findCheckoutOrigins(tx: Tx, id: string): Promise<string[] | undefined>;

  abstract setCheckoutOrigins(tx: Tx, id: string, origins: string[]): Promise<void>;

  /** The merchant's callback secrets as stored (encrypted); undefined for an unknown merchant. */
  abstract findCallbackSecrets(tx: Tx, id: string): Promise<StoredCallbackSecrets | undefined>;

  abstract setCallbackSecrets(tx: Tx, id: string, secrets: StoredCallbackSecrets): Promise<void>;

  /** One merchant's current callback secret as stored (the first by id), if any merchant has one. */
  abstract findAnyCallbackSecret(
    tx: Tx,
  ): Promise<{ merchantId: string; secret: string } | undefined>;

  abstract findKeyByHash(tx: Tx, keyHash: string): Promise<ApiKeyRecord | undefined>;

  abstract findKey(tx: Tx, merchantId: string, keyId: string): Promise<ApiKeyRecord | undefined>;

  /**
   * The merchant's keys, revoked ones included, oldest first (ties by key id), read afresh;
   * undefined for an unknown merchant.
   */
  abstract listKeys(merchantId: string, page: PageRequest): Promise<Page<ApiKeyRecord> | undefined>;

  abstract insertKey(tx: Tx, key: Omit<ApiKeyRecord, 'createdAt'>): Promise<void>;

  abstract revokeKey(tx: Tx, keyId: string, revokedAt: string): Promise<void>;
}
