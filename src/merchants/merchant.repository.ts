import type { Tx } from '../database/transactions.js';

export interface MerchantRecord {
  id: string;
  name: string;
}

/** An API key as stored: only the SHA-256 hash of its plaintext. */
export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  keyHash: string;
  createdAt: Date;
  /** ISO time of revocation; null while the key works. */
  revokedAt: string | null;
}

/** A key that works, and whose merchant it opens. */
export interface ResolvedKey {
  keyId: string;
  merchantId: string;
}

/** Storage of merchants and their API keys. */
export abstract class MerchantRepository {
  /** The unrevoked key with this hash, read on the hot path (outside any transaction). */
  abstract findActiveKey(keyHash: string): Promise<ResolvedKey | undefined>;

  /** True while the merchant has a key that works. */
  abstract hasActiveKey(merchantId: string): Promise<boolean>;

  abstract find(tx: Tx, id: string): Promise<MerchantRecord | undefined>;

  /** Inserts a merchant; false when one with this id exists already. */
  abstract insert(tx: Tx, merchant: MerchantRecord): Promise<boolean>;

  abstract rename(tx: Tx, id: string, name: string): Promise<void>;

  abstract findKeyByHash(tx: Tx, keyHash: string): Promise<ApiKeyRecord | undefined>;

  abstract findKey(tx: Tx, merchantId: string, keyId: string): Promise<ApiKeyRecord | undefined>;

  abstract insertKey(tx: Tx, key: Omit<ApiKeyRecord, 'createdAt'>): Promise<void>;

  abstract revokeKey(tx: Tx, keyId: string, revokedAt: string): Promise<void>;
}
