import type { Tx } from '../../src/database/transactions.js';
import {
  ApiKeyRecord,
  MerchantRecord,
  MerchantRepository,
  ResolvedKey,
} from '../../src/merchants/merchant.repository.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

interface State {
  merchants: Map<string, MerchantRecord>;
  keys: Map<string, ApiKeyRecord>;
}

export class InMemoryMerchants extends MerchantRepository implements Rollbackable {
  private state: State = { merchants: new Map(), keys: new Map() };
  /** Hot-path key lookups made, to check what the service keeps in memory. */
  keyLookups = 0;

  async findActiveKey(keyHash: string): Promise<ResolvedKey | undefined> {
    this.keyLookups++;
    const key = [...this.state.keys.values()].find(
      (k) => k.keyHash === keyHash && k.revokedAt === null,
    );
    return key && { keyId: key.id, merchantId: key.merchantId };
  }

  async hasActiveKey(merchantId: string): Promise<boolean> {
    return [...this.state.keys.values()].some(
      (k) => k.merchantId === merchantId && k.revokedAt === null,
    );
  }

  async find(_tx: Tx, id: string): Promise<MerchantRecord | undefined> {
    const merchant = this.state.merchants.get(id);
    return merchant && copy(merchant);
  }

  async insert(_tx: Tx, merchant: MerchantRecord): Promise<boolean> {
    if (this.state.merchants.has(merchant.id)) return false;
    this.state.merchants.set(merchant.id, copy(merchant));
    return true;
  }

  async rename(_tx: Tx, id: string, name: string): Promise<void> {
    const merchant = this.state.merchants.get(id);
    if (merchant) merchant.name = name;
  }

  async findKeyByHash(_tx: Tx, keyHash: string): Promise<ApiKeyRecord | undefined> {
    const key = [...this.state.keys.values()].find((k) => k.keyHash === keyHash);
    return key && copy(key);
  }

  async findKey(_tx: Tx, merchantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const key = this.state.keys.get(keyId);
    return key && key.merchantId === merchantId ? copy(key) : undefined;
  }

  async insertKey(_tx: Tx, key: Omit<ApiKeyRecord, 'createdAt'>): Promise<void> {
    if ([...this.state.keys.values()].some((k) => k.keyHash === key.keyHash)) {
      throw new Error('UNIQUE constraint failed: api_key.key_hash');
    }
    this.state.keys.set(key.id, { ...copy(key), createdAt: new Date() });
  }

  async revokeKey(_tx: Tx, keyId: string, revokedAt: string): Promise<void> {
    const key = this.state.keys.get(keyId);
    if (key) key.revokedAt = revokedAt;
  }

  keys(): ApiKeyRecord[] {
    return copy([...this.state.keys.values()]);
  }

  snapshot(): unknown {
    return copy(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copy(snapshot as State);
  }
}
