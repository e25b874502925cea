import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryTransactions, testSecretBox } from '../../test/fakes/in-memory-transactions.js';
import { apiErrorOf } from '../../test/support/api-error-of.js';
import { ChangeFeed, type Subscription } from '../database/change-feed.js';
import type { Tx } from '../database/transactions.js';
import { hashApiKey } from './api-key.js';
import { DEMO_MERCHANT_ID, MerchantService } from './merchant.service.js';

function setup() {
  const merchants = new InMemoryMerchants();
  const transactions = new InMemoryTransactions(merchants);
  return {
    service: new MerchantService(merchants, transactions, testSecretBox()),
    merchants,
    transactions,
  };
}

describe('MerchantService: keys', () => {
  it('resolves a created key to its merchant; an unknown key to nothing', async () => {
    const { service } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId, apiKey } = await service.createKey('acme');
    expect(await service.resolve(apiKey)).toEqual({ keyId, merchantId: 'acme' });
    expect(await service.resolve(`${apiKey}x`)).toBeUndefined();
  });

  it('stores only the hash of a created key', async () => {
    const { service, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { apiKey } = await service.createKey('acme');
    const [stored] = merchants.keys();
    expect(stored.keyHash).toBe(hashApiKey(apiKey));
    expect(JSON.stringify(merchants.keys())).not.toContain(apiKey);
  });

  it('keeps a resolved key in memory: one lookup serves every later request', async () => {
    const { service, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { apiKey } = await service.createKey('acme');
    for (let i = 0; i < 5; i++) await service.resolve(apiKey);
    expect(merchants.keyLookups).toBe(1);
  });

  it('answers a kept key at once, without a promise; an unknown key after the lookup', async () => {
    const { service } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId, apiKey } = await service.createKey('acme');
    const first = service.resolve(apiKey);
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(service.resolve(apiKey)).toEqual({ keyId, merchantId: 'acme' });
    const unknown = service.resolve(`${apiKey}x`);
    expect(unknown).toBeInstanceOf(Promise);
    expect(await unknown).toBeUndefined();
  });

  it('does not remember a miss: a key created after a miss works at once', async () => {
    const { service, transactions, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const plaintext = 'gw_seeded_key_with_at_least_32_characters';
    expect(await service.resolve(plaintext)).toBeUndefined();
    await transactions.run((tx) =>
      service.upsertFromSeed(tx, { id: 'acme', name: 'Acme' }, [plaintext]),
    );
    expect(await service.resolve(plaintext)).toMatchObject({ merchantId: 'acme' });
    expect(merchants.keyLookups).toBe(2);
  });

  it('refuses a revoked key on the very next request, even after it was cached', async () => {
    const { service } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId, apiKey } = await service.createKey('acme');
    expect(await service.resolve(apiKey)).toBeDefined();
    await service.revokeKey('acme', keyId);
    expect(await service.resolve(apiKey)).toBeUndefined();
  });

  it('revokes twice without error and keeps the first revocation time', async () => {
    const { service, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId } = await service.createKey('acme');
    await service.revokeKey('acme', keyId);
    const first = merchants.keys()[0].revokedAt;
    await service.revokeKey('acme', keyId);
    expect(merchants.keys()[0].revokedAt).toBe(first);
  });

  it.each([
    ['a key of an unknown merchant', (s: MerchantService) => s.createKey('nobody'), 'merchantId'],
    [
      "a key under another merchant's id",
      async (s: MerchantService) => {
        await s.createMerchant({ id: 'globex', name: 'Globex' });
        const { keyId } = await s.createKey('globex');
        return s.revokeKey('acme', keyId);
      },
      'keyId',
    ],
    [
      'an unknown key id',
      (s: MerchantService) => s.revokeKey('acme', '0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d'),
      'keyId',
    ],
  ])('answers %s with 404 NOT_FOUND', async (_label, act, field) => {
    const { service } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const error = await apiErrorOf(act(service));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.items[0].field).toBe(field);
  });

  it('tells whether the demo merchant still has a working key', async () => {
    const { service } = setup();
    await service.createMerchant({ id: DEMO_MERCHANT_ID, name: 'Demo' });
    expect(await service.demoKeyActive()).toBe(false);
    const { keyId } = await service.createKey(DEMO_MERCHANT_ID);
    expect(await service.demoKeyActive()).toBe(true);
    await service.revokeKey(DEMO_MERCHANT_ID, keyId);
    expect(await service.demoKeyActive()).toBe(false);
  });
});

describe('MerchantService: merchants', () => {
  it('refuses a second merchant with the same id with 409 naming id', async () => {
    const { service } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const error = await apiErrorOf(service.createMerchant({ id: 'acme', name: 'Other' }));
    expect(error.code).toBe('CONFLICT');
    expect(error.items[0].field).toBe('id');
  });

  it('upserts a seed merchant: creates, renames, adds missing keys, and is idempotent', async () => {
    const { service, transactions, merchants } = setup();
    const keys = ['k'.repeat(32), 'q'.repeat(40)];
    const upsert = (name: string, apiKeys: string[]) =>
      transactions.run((tx) => service.upsertFromSeed(tx, { id: 'acme', name }, apiKeys));
    expect(await upsert('Acme', keys.slice(0, 1))).toBe(true);
    expect(await upsert('Acme', keys.slice(0, 1))).toBe(false);
    expect(await upsert('Acme Ltd', keys.slice(0, 1))).toBe(true);
    expect(await upsert('Acme Ltd', keys)).toBe(true);
    expect(await upsert('Acme Ltd', keys)).toBe(false);
    expect(merchants.keys()).toHaveLength(2);
  });

  it('refuses a seed key that belongs to another merchant, and rolls the merchant back', async () => {
    const { service, transactions, merchants } = setup();
    const key = 'k'.repeat(32);
    await transactions.run((tx) => service.upsertFromSeed(tx, { id: 'globex', name: 'G' }, [key]));
    const error = await apiErrorOf(
      transactions.run((tx) => service.upsertFromSeed(tx, { id: 'acme', name: 'A' }, [key])),
    );
    expect(error.code).toBe('CONFLICT');
    expect(await transactions.run((tx) => merchants.find(tx, 'acme'))).toBeUndefined();
  });
});

describe('MerchantService: callback secrets', () => {
  it('reads the secrets once for a burst of callbacks, and signs with a rotated one at once', async () => {
    const { service, merchants } = setup();
    const { callbackSecret } = await service.createMerchant({ id: 'acme', name: 'Acme' });
    for (let i = 0; i < 5; i++) {
      expect(await service.signingSecrets('acme')).toEqual([callbackSecret]);
    }
    expect(merchants.secretLookups).toBe(1);
    const rotated = await service.rotateCallbackSecret('acme');
    expect(await service.signingSecrets('acme')).toEqual([rotated.callbackSecret, callbackSecret]);
  });

  it('drops its copy when another instance announces a rotation, and keeps none while the feed may miss one', async () => {
    const merchants = new InMemoryMerchants();
    const transactions = new InMemoryTransactions(merchants);
    const feed = new FakeChangeFeed();
    const box = testSecretBox();
    const service = new MerchantService(merchants, transactions, box, feed);
    const { callbackSecret } = await service.createMerchant({ id: 'acme', name: 'Acme' });
    expect(feed.announced).toEqual([]);
    expect(await service.signingSecrets('acme')).toEqual([callbackSecret]);
    // Another instance rotates: its transaction commits, then the announcement arrives.
    const other = new MerchantService(merchants, transactions, box, new FakeChangeFeed());
    const rotated = await other.rotateCallbackSecret('acme');
    expect(await service.signingSecrets('acme')).toEqual([callbackSecret]); // nothing heard yet
    feed.deliver('acme', 'callback-secret-replaced');
    expect(await service.signingSecrets('acme')).toEqual([rotated.callbackSecret, callbackSecret]);
    feed.reliable = false;
    const lookups = merchants.secretLookups;
    await service.signingSecrets('acme');
    await service.signingSecrets('acme');
    expect(merchants.secretLookups).toBe(lookups + 2);
  });

  it('announces a rotation with the merchant id', async () => {
    const merchants = new InMemoryMerchants();
    const feed = new FakeChangeFeed();
    const service = new MerchantService(
      merchants,
      new InMemoryTransactions(merchants),
      testSecretBox(),
      feed,
    );
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    await service.rotateCallbackSecret('acme');
    expect(feed.announced).toEqual(['callback-secret-replaced:acme']);
  });

  it('signs with no secret for an unknown merchant, and finds one created later', async () => {
    const { service } = setup();
    expect(await service.signingSecrets('acme')).toEqual([]);
    const { callbackSecret } = await service.createMerchant({ id: 'acme', name: 'Acme' });
    expect(await service.signingSecrets('acme')).toEqual([callbackSecret]);
  });
});

describe('MerchantService: what the operator sees', () => {
  it('lists merchants ordered by id, a page at a time, with the total', async () => {
    const { service } = setup();
    for (const id of ['globex', 'Acme', 'acme', 'initech', '0day']) {
      await service.createMerchant({ id, name: `${id} Ltd` });
    }
    const first = await service.listMerchants({ page: 0, size: 2 });
    expect(first.total).toBe(5);
    expect(first.payload).toEqual([
      { id: '0day', name: '0day Ltd', createdAt: expect.any(String) },
      { id: 'Acme', name: 'Acme Ltd', createdAt: expect.any(String) },
    ]);
    expect(new Date(first.payload[0].createdAt).toISOString()).toBe(first.payload[0].createdAt);
    const rest = await service.listMerchants({ page: 1, size: 10 });
    expect(rest).toEqual({ payload: [], total: 5 });
    const all = await service.listMerchants({ page: 0, size: 10 });
    expect(all.payload.map((m) => m.id)).toEqual(['0day', 'Acme', 'acme', 'globex', 'initech']);
  });

  it('lists an empty database as an empty page', async () => {
    const { service } = setup();
    expect(await service.listMerchants({ page: 0, size: 10 })).toEqual({ payload: [], total: 0 });
  });

  it("lists a merchant's keys oldest first with last4 and revokedAt, never the key or its hash", async () => {
    const { service, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    await service.createMerchant({ id: 'globex', name: 'Globex' });
    const first = await service.createKey('acme');
    const second = await service.createKey('acme');
    await service.createKey('globex');
    await service.revokeKey('acme', first.keyId);

    const { payload, total } = await service.listKeys('acme', { page: 0, size: 10 });
    expect(total).toBe(2);
    expect(payload).toEqual([
      {
        keyId: first.keyId,
        createdAt: expect.any(String),
        revokedAt: merchants.keys().find((k) => k.id === first.keyId)?.revokedAt,
        last4: first.apiKey.slice(-4),
      },
      { keyId: second.keyId, createdAt: expect.any(String), last4: second.apiKey.slice(-4) },
    ]);
    expect(payload[0].revokedAt).toEqual(expect.any(String));
    const text = JSON.stringify(payload);
    for (const key of merchants.keys()) expect(text).not.toContain(key.keyHash);
    expect(text).not.toContain(first.apiKey);
    expect(text).not.toContain(second.apiKey);
  });

  it('pages the keys', async () => {
    const { service } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await service.createKey('acme'));
    const page = await service.listKeys('acme', { page: 1, size: 2 });
    expect(page.total).toBe(3);
    expect(page.payload.map((k) => k.keyId)).toEqual([created[2].keyId]);
  });

  it('keeps the last 4 characters of a seeded key', async () => {
    const { service, transactions } = setup();
    const plaintext = 'gw_seeded_key_with_at_least_32_charactersXYZ9';
    await transactions.run((tx) =>
      service.upsertFromSeed(tx, { id: 'acme', name: 'Acme' }, [plaintext]),
    );
    const { payload } = await service.listKeys('acme', { page: 0, size: 10 });
    expect(payload).toEqual([
      { keyId: expect.any(String), createdAt: expect.any(String), last4: 'XYZ9' },
    ]);
  });

  it('leaves last4 out for a key stored before it was kept', async () => {
    const { service, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId } = await service.createKey('acme');
    merchants.forgetLast4(keyId);
    const { payload } = await service.listKeys('acme', { page: 0, size: 10 });
    expect(payload).toEqual([{ keyId, createdAt: expect.any(String) }]);
    expect('last4' in payload[0]).toBe(false);
  });

  it('answers the keys of an unknown merchant with 404 NOT_FOUND', async () => {
    const { service } = setup();
    const error = await apiErrorOf(service.listKeys('nobody', { page: 0, size: 10 }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.items[0].field).toBe('merchantId');
  });

  it('tells whether a plaintext key of a merchant works, was revoked, or is not its key', async () => {
    const { service } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    await service.createMerchant({ id: 'globex', name: 'Globex' });
    const { keyId, apiKey } = await service.createKey('acme');
    expect(await service.keyState('acme', apiKey)).toBe('active');
    expect(await service.keyState('globex', apiKey)).toBe('unknown');
    expect(await service.keyState('acme', `${apiKey}x`)).toBe('unknown');
    await service.revokeKey('acme', keyId);
    expect(await service.keyState('acme', apiKey)).toBe('revoked');
  });
});

/** A change feed whose announcements and reliability the test controls. */
class FakeChangeFeed extends ChangeFeed {
  reliable = true;
  readonly announced: string[] = [];
  private readonly subscriptions: [string, Subscription][] = [];
  subscribe(kind: string, subscription: Subscription): void {
    this.subscriptions.push([kind, subscription]);
  }
  async announce(_tx: Tx, kind: string, payload: string): Promise<void> {
    this.announced.push(`${kind}:${payload}`);
  }
  /** Another instance announced a change: by default, it revoked the key with this hash. */
  deliver(payload: string, kind = 'api-key-revoked'): void {
    for (const [k, s] of this.subscriptions) if (k === kind) s.onChange(payload);
  }
  gap(): void {
    for (const [, s] of this.subscriptions) s.onGap();
  }
}

describe('MerchantService: keys revoked on other instances', () => {
  async function setupWithFeed() {
    const merchants = new InMemoryMerchants();
    const transactions = new InMemoryTransactions(merchants);
    const feed = new FakeChangeFeed();
    const service = new MerchantService(merchants, transactions, testSecretBox(), feed);
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const key = await service.createKey('acme');
    return { service, merchants, feed, key };
  }

  it('announces a revocation with the hash of the key, once', async () => {
    const { service, feed, key } = await setupWithFeed();
    await service.revokeKey('acme', key.keyId);
    await service.revokeKey('acme', key.keyId);
    expect(feed.announced).toEqual([`api-key-revoked:${hashApiKey(key.apiKey)}`]);
  });

  it('refuses a kept key as soon as another instance announces its revocation', async () => {
    const { service, merchants, feed, key } = await setupWithFeed();
    expect(await service.resolve(key.apiKey)).toBeDefined();
    // The other instance's transaction: the row changes, then the announcement arrives.
    await merchants.revokeKey({ inTransaction: true }, key.keyId, new Date().toISOString());
    expect(await service.resolve(key.apiKey)).toBeDefined(); // still kept: nothing heard yet
    feed.deliver(hashApiKey(key.apiKey));
    expect(await service.resolve(key.apiKey)).toBeUndefined();
  });

  it('trusts nothing it kept while the feed may miss announcements, and forgets it all after a gap', async () => {
    const { service, merchants, feed, key } = await setupWithFeed();
    await service.resolve(key.apiKey);
    const lookups = merchants.keyLookups;
    feed.reliable = false;
    await service.resolve(key.apiKey);
    await service.resolve(key.apiKey);
    expect(merchants.keyLookups).toBe(lookups + 2);
    await merchants.revokeKey({ inTransaction: true }, key.keyId, new Date().toISOString());
    feed.gap();
    feed.reliable = true;
    expect(await service.resolve(key.apiKey)).toBeUndefined();
  });

  it('does not keep a lookup that was under way when a revocation was heard', async () => {
    const { service, merchants, feed, key } = await setupWithFeed();
    const hash = hashApiKey(key.apiKey);
    // The lookup reads the key as active; the revocation is heard before the lookup returns.
    const original = merchants.findActiveKey.bind(merchants);
    merchants.findActiveKey = async (h: string) => {
      const found = await original(h);
      await merchants.revokeKey({ inTransaction: true }, key.keyId, new Date().toISOString());
      feed.deliver(hash);
      return found;
    };
    expect(await service.resolve(key.apiKey)).toBeDefined();
    merchants.findActiveKey = original;
    expect(await service.resolve(key.apiKey)).toBeUndefined();
  });
});
