import type { Page, PageRequest } from '../../src/database/prepared-reads.js';
import type { Tx } from '../../src/database/transactions.js';
import {
  ApiKeyRecord,
  ListedMerchant,
  MerchantRecord,
  MerchantRepository,
  ResolvedKey,
  StoredCallbackSecrets,
} from '../../src/merchants/merchant.repository.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

interface State {
  merchants: Map<string, ListedMerchant>;
  keys: Map<string, ApiKeyRecord>;
  secrets: Map<string, StoredCallbackSecrets>;
  checkoutOrigins: Map<string, string[]>;
}

/** Ids and names compare by code unit, as the database's binary collation does. */
const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function pageOf<T>(rows: T[], { page, size }: PageRequest): Page<T> {
  return { rows: copy(rows.slice(page * size, page * size + size)), total: rows.length };
}

export class InMemoryMerchants extends MerchantRepository implements Rollbackable {
  private state: State = {
    merchants: new Map(),
    keys: new Map(),
    secrets: new Map(),
    checkoutOrigins: new Map(),
  };
  /** Hot-path key lookups made, to check what the service keeps in memory. */
  keyLookups = 0;
  /** Reads of callback secrets made, likewise. */
  secretLookups = 0;
  /** The time the next record is created at; advances by a second per record. */
  private clock = Date.parse('2026-01-01T00:00:00Z');

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
    return merchant && { id: merchant.id, name: merchant.name };
  }

  async findCheckoutOrigins(_tx: Tx, id: string): Promise<string[] | undefined> {
    if (!this.state.merchants.has(id)) return undefined;
    return copy(this.state.checkoutOrigins.get(id) ?? []);
  }

  async setCheckoutOrigins(_tx: Tx, id: string, origins: string[]): Promise<void> {
    this.state.checkoutOrigins.set(id, copy(origins));
  }

  async list(page: PageRequest): Promise<Page<ListedMerchant>> {
    const all = [...this.state.merchants.values()].sort((a, b) => byCode(a.id, b.id));
    return pageOf(all, page);
  }

  async insert(_tx: Tx, merchant: MerchantRecord): Promise<boolean> {
    if (this.state.merchants.has(merchant.id)) return false;
    this.state.merchants.set(merchant.id, { ...copy(merchant), createdAt: this.now() });
    return true;
  }

  async rename(_tx: Tx, id: string, name: string): Promise<void> {
    const merchant = this.state.merchants.get(id);
    if (merchant) merchant.name = name;
  }

  async findCallbackSecrets(_tx: Tx, id: string): Promise<StoredCallbackSecrets | undefined> {
    this.secretLookups++;
    if (!this.state.merchants.has(id)) return undefined;
    return copy(this.state.secrets.get(id) ?? { current: null, previous: null, rotatedAt: null });
  }

  async findAnyCallbackSecret(): Promise<{ merchantId: string; secret: string } | undefined> {
    const [merchantId, secrets] =
      [...this.state.secrets.entries()]
        .filter(([, stored]) => stored.current !== null)
        .sort(([a], [b]) => (a < b ? -1 : 1))[0] ?? [];
    return merchantId && secrets?.current ? { merchantId, secret: secrets.current } : undefined;
  }

  async setCallbackSecrets(_tx: Tx, id: string, secrets: StoredCallbackSecrets): Promise<void> {
    this.state.secrets.set(id, copy(secrets));
  }

  async findKeyByHash(_tx: Tx, keyHash: string): Promise<ApiKeyRecord | undefined> {
    const key = [...this.state.keys.values()].find((k) => k.keyHash === keyHash);
    return key && copy(key);
  }

  async findKey(_tx: Tx, merchantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const key = this.state.keys.get(keyId);
    return key && key.merchantId === merchantId ? copy(key) : undefined;
  }

  async listKeys(merchantId: string, page: PageRequest): Promise<Page<ApiKeyRecord> | undefined> {
    if (!this.state.merchants.has(merchantId)) return undefined;
    const all = [...this.state.keys.values()]
      .filter((k) => k.merchantId === merchantId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || byCode(a.id, b.id));
    return pageOf(all, page);
  }

  async insertKey(_tx: Tx, key: Omit<ApiKeyRecord, 'createdAt'>): Promise<void> {
    if ([...this.state.keys.values()].some((k) => k.keyHash === key.keyHash)) {
      throw new Error('UNIQUE constraint failed: api_key.key_hash');
    }
    this.state.keys.set(key.id, { ...copy(key), createdAt: this.now() });
  }

  async revokeKey(_tx: Tx, keyId: string, revokedAt: string): Promise<void> {
    const key = this.state.keys.get(keyId);
    if (key) key.revokedAt = revokedAt;
  }

  keys(): ApiKeyRecord[] {
    return copy([...this.state.keys.values()]);
  }

  /** Stores a key as one created before the last 4 characters were kept. */
  forgetLast4(keyId: string): void {
    const key = this.state.keys.get(keyId);
    if (key) key.last4 = null;
  }

  snapshot(): unknown {
    return copy(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copy(snapshot as State);
  }

  private now(): Date {
    const at = new Date(this.clock);
    this.clock += 1000;
    return at;
  }
}
