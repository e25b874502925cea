import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryTransactions, testSecretBox } from '../../test/fakes/in-memory-transactions.js';
import { apiErrorOf } from '../../test/support/api-error-of.js';
import { ChangeFeed, type Subscription } from '../database/change-feed.js';
import type { Tx } from '../database/transactions.js';
import { hashApiKey } from '../access/api-key.js';
import { merchantServices } from '../../test/fakes/merchant-services.js';
import { DEMO_MERCHANT_ID } from './merchant-id.js';

function setup() {
  const merchants = new InMemoryMerchants();
  const transactions = new InMemoryTransactions(merchants);
  const { merchants: service, keys, secrets } = merchantServices(merchants, transactions);
  return { service, keys, secrets, merchants, transactions };
}

type Services = ReturnType<typeof setup>;

describe('ApiKeyService', () => {
  it('resolves a created key to its merchant; an unknown key to nothing', async () => {
    const { service, keys } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId, apiKey } = await keys.createKey('acme');
    expect(await keys.resolve(apiKey)).toEqual({ keyId, merchantId: 'acme' });
    expect(await keys.resolve(`${apiKey}x`)).toBeUndefined();
  });

  it('stores only the hash of a created key', async () => {
    const { service, keys, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { apiKey } = await keys.createKey('acme');
    const [stored] = merchants.keys();
    expect(stored.keyHash).toBe(hashApiKey(apiKey));
    expect(JSON.stringify(merchants.keys())).not.toContain(apiKey);
  });

  it('keeps a resolved key in memory: one lookup serves every later request', async () => {
    const { service, keys, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { apiKey } = await keys.createKey('acme');
    for (let i = 0; i < 5; i++) await keys.resolve(apiKey);
    expect(merchants.keyLookups).toBe(1);
  });

  it('answers a kept key at once, without a promise; an unknown key after the lookup', async () => {
    const { service, keys } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId, apiKey } = await keys.createKey('acme');
    const first = keys.resolve(apiKey);
    expect(first).toBeInstanceOf(Promise);
    await first;
    expect(keys.resolve(apiKey)).toEqual({ keyId, merchantId: 'acme' });
    const unknown = keys.resolve(`${apiKey}x`);
    expect(unknown).toBeInstanceOf(Promise);
    expect(await unknown).toBeUndefined();
  });

  it('does not remember a miss: a key created after a miss works at once', async () => {
    const { service, keys, merchants, transactions } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const plaintext = 'gw_seeded_key_with_at_least_32_characters';
    expect(await keys.resolve(plaintext)).toBeUndefined();
    await transactions.run((tx) =>
      service.upsertFromSeed(tx, { id: 'acme', name: 'Acme' }, [plaintext]),
    );
    expect(await keys.resolve(plaintext)).toMatchObject({ merchantId: 'acme' });
    expect(merchants.keyLookups).toBe(2);
  });

  it('refuses a revoked key on the very next request, even after it was cached', async () => {
    const { service, keys } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId, apiKey } = await keys.createKey('acme');
    expect(await keys.resolve(apiKey)).toBeDefined();
    await keys.revokeKey('acme', keyId);
    expect(await keys.resolve(apiKey)).toBeUndefined();
  });

  it('revokes twice without error and keeps the first revocation time', async () => {
    const { service, keys, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId } = await keys.createKey('acme');
    await keys.revokeKey('acme', keyId);
    const first = merchants.keys()[0].revokedAt;
    await keys.revokeKey('acme', keyId);
    expect(merchants.keys()[0].revokedAt).toBe(first);
  });

  it.each([
    ['a key of an unknown merchant', (s: Services) => s.keys.createKey('nobody'), 'merchantId'],
    [
      "a key under another merchant's id",
      async (s: Services) => {
        await s.service.createMerchant({ id: 'globex', name: 'Globex' });
        const { keyId } = await s.keys.createKey('globex');
        return s.keys.revokeKey('acme', keyId);
      },
      'keyId',
    ],
    [
      'an unknown key id',
      (s: Services) => s.keys.revokeKey('acme', '0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d'),
      'keyId',
    ],
  ])('answers %s with 404 NOT_FOUND', async (_label, act, field) => {
    const services = setup();
    await services.service.createMerchant({ id: 'acme', name: 'Acme' });
    const error = await apiErrorOf(act(services));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.items[0].field).toBe(field);
  });

  it('tells whether the demo merchant still has a working key', async () => {
    const { service, keys } = setup();
    await service.createMerchant({ id: DEMO_MERCHANT_ID, name: 'Demo' });
    expect(await keys.demoKeyActive()).toBe(false);
    const { keyId } = await keys.createKey(DEMO_MERCHANT_ID);
    expect(await keys.demoKeyActive()).toBe(true);
    await keys.revokeKey(DEMO_MERCHANT_ID, keyId);
    expect(await keys.demoKeyActive()).toBe(false);
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
    const { service, merchants, transactions } = setup();
    const plaintexts = ['k'.repeat(32), 'q'.repeat(40)];
    const upsert = (name: string, apiKeys: string[]) =>
      transactions.run((tx) => service.upsertFromSeed(tx, { id: 'acme', name }, apiKeys));
    expect(await upsert('Acme', plaintexts.slice(0, 1))).toBe(true);
    expect(await upsert('Acme', plaintexts.slice(0, 1))).toBe(false);
    expect(await upsert('Acme Ltd', plaintexts.slice(0, 1))).toBe(true);
    expect(await upsert('Acme Ltd', plaintexts)).toBe(true);
    expect(await upsert('Acme Ltd', plaintexts)).toBe(false);
    expect(merchants.keys()).toHaveLength(2);
  });

  it('refuses a seed key that belongs to another merchant, and rolls the merchant back', async () => {
    const { service, merchants, transactions } = setup();
    const key = 'k'.repeat(32);
    await transactions.run((tx) => service.upsertFromSeed(tx, { id: 'globex', name: 'G' }, [key]));
    const error = await apiErrorOf(
      transactions.run((tx) => service.upsertFromSeed(tx, { id: 'acme', name: 'A' }, [key])),
    );
    expect(error.code).toBe('CONFLICT');
    expect(await transactions.run((tx) => merchants.find(tx, 'acme'))).toBeUndefined();
  });
});

describe('CallbackSecretService', () => {
  it('reads the secrets once for a burst of callbacks, and signs with a rotated one at once', async () => {
    const { service, secrets, merchants } = setup();
    const { callbackSecret } = await service.createMerchant({ id: 'acme', name: 'Acme' });
    for (let i = 0; i < 5; i++) {
      expect(await secrets.signingSecrets('acme')).toEqual([callbackSecret]);
    }
    expect(merchants.secretLookups).toBe(1);
    const rotated = await secrets.rotate('acme');
    expect(await secrets.signingSecrets('acme')).toEqual([rotated.callbackSecret, callbackSecret]);
  });

  it('drops its copy when another instance announces a rotation, and keeps none while the feed may miss one', async () => {
    const merchants = new InMemoryMerchants();
    const transactions = new InMemoryTransactions(merchants);
    const feed = new FakeChangeFeed();
    const box = testSecretBox();
    const { merchants: service, secrets } = merchantServices(merchants, transactions, feed, box);
    const { callbackSecret } = await service.createMerchant({ id: 'acme', name: 'Acme' });
    expect(feed.announced).toEqual([]);
    expect(await secrets.signingSecrets('acme')).toEqual([callbackSecret]);
    // Another instance rotates: its transaction commits, then the announcement arrives.
    const other = merchantServices(merchants, transactions, new FakeChangeFeed(), box);
    const rotated = await other.secrets.rotate('acme');
    expect(await secrets.signingSecrets('acme')).toEqual([callbackSecret]); // nothing heard yet
    feed.deliver('acme', 'callback-secret-replaced');
    expect(await secrets.signingSecrets('acme')).toEqual([rotated.callbackSecret, callbackSecret]);
    feed.reliable = false;
    const lookups = merchants.secretLookups;
    await secrets.signingSecrets('acme');
    await secrets.signingSecrets('acme');
    expect(merchants.secretLookups).toBe(lookups + 2);
  });

  it('announces a rotation with the merchant id', async () => {
    const merchants = new InMemoryMerchants();
    const feed = new FakeChangeFeed();
    const { merchants: service, secrets } = merchantServices(
      merchants,
      new InMemoryTransactions(merchants),
      feed,
    );
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    await secrets.rotate('acme');
    expect(feed.announced).toEqual(['callback-secret-replaced:acme']);
  });

  it('signs with no secret for an unknown merchant, and finds one created later', async () => {
    const { service, secrets } = setup();
    expect(await secrets.signingSecrets('acme')).toEqual([]);
    const { callbackSecret } = await service.createMerchant({ id: 'acme', name: 'Acme' });
    expect(await secrets.signingSecrets('acme')).toEqual([callbackSecret]);
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
    const { service, keys, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    await service.createMerchant({ id: 'globex', name: 'Globex' });
    const first = await keys.createKey('acme');
    const second = await keys.createKey('acme');
    await keys.createKey('globex');
    await keys.revokeKey('acme', first.keyId);

    const { payload, total } = await keys.listKeys('acme', { page: 0, size: 10 });
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
    const { service, keys } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await keys.createKey('acme'));
    const page = await keys.listKeys('acme', { page: 1, size: 2 });
    expect(page.total).toBe(3);
    expect(page.payload.map((k) => k.keyId)).toEqual([created[2].keyId]);
  });

  it('keeps the last 4 characters of a seeded key', async () => {
    const { service, keys, transactions } = setup();
    const plaintext = 'gw_seeded_key_with_at_least_32_charactersXYZ9';
    await transactions.run((tx) =>
      service.upsertFromSeed(tx, { id: 'acme', name: 'Acme' }, [plaintext]),
    );
    const { payload } = await keys.listKeys('acme', { page: 0, size: 10 });
    expect(payload).toEqual([
      { keyId: expect.any(String), createdAt: expect.any(String), last4: 'XYZ9' },
    ]);
  });

  it('leaves last4 out for a key stored before it was kept', async () => {
    const { service, keys, merchants } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const { keyId } = await keys.createKey('acme');
    merchants.forgetLast4(keyId);
    const { payload } = await keys.listKeys('acme', { page: 0, size: 10 });
    expect(payload).toEqual([{ keyId, createdAt: expect.any(String) }]);
    expect('last4' in payload[0]).toBe(false);
  });

  it('answers the keys of an unknown merchant with 404 NOT_FOUND', async () => {
    const { keys } = setup();
    const error = await apiErrorOf(keys.listKeys('nobody', { page: 0, size: 10 }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.items[0].field).toBe('merchantId');
  });

  it('tells whether a plaintext key of a merchant works, was revoked, or is not its key', async () => {
    const { service, keys } = setup();
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    await service.createMerchant({ id: 'globex', name: 'Globex' });
    const { keyId, apiKey } = await keys.createKey('acme');
    expect(await keys.keyState('acme', apiKey)).toBe('active');
    expect(await keys.keyState('globex', apiKey)).toBe('unknown');
    expect(await keys.keyState('acme', `${apiKey}x`)).toBe('unknown');
    await keys.revokeKey('acme', keyId);
    expect(await keys.keyState('acme', apiKey)).toBe('revoked');
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

describe('ApiKeyService: keys revoked on other instances', () => {
  async function setupWithFeed() {
    const merchants = new InMemoryMerchants();
    const transactions = new InMemoryTransactions(merchants);
    const feed = new FakeChangeFeed();
    const { merchants: service, keys } = merchantServices(merchants, transactions, feed);
    await service.createMerchant({ id: 'acme', name: 'Acme' });
    const key = await keys.createKey('acme');
    return { keys, merchants, feed, key };
  }

  it('announces a revocation with the hash of the key, once', async () => {
    const { keys, feed, key } = await setupWithFeed();
    await keys.revokeKey('acme', key.keyId);
    await keys.revokeKey('acme', key.keyId);
    expect(feed.announced).toEqual([`api-key-revoked:${hashApiKey(key.apiKey)}`]);
  });

  it('refuses a kept key as soon as another instance announces its revocation', async () => {
    const { keys, merchants, feed, key } = await setupWithFeed();
    expect(await keys.resolve(key.apiKey)).toBeDefined();
    // The other instance's transaction: the row changes, then the announcement arrives.
    await merchants.revokeKey({ inTransaction: true }, key.keyId, new Date().toISOString());
    expect(await keys.resolve(key.apiKey)).toBeDefined(); // still kept: nothing heard yet
    feed.deliver(hashApiKey(key.apiKey));
    expect(await keys.resolve(key.apiKey)).toBeUndefined();
  });

  it('trusts nothing it kept while the feed may miss announcements, and forgets it all after a gap', async () => {
    const { keys, merchants, feed, key } = await setupWithFeed();
    await keys.resolve(key.apiKey);
    const lookups = merchants.keyLookups;
    feed.reliable = false;
    await keys.resolve(key.apiKey);
    await keys.resolve(key.apiKey);
    expect(merchants.keyLookups).toBe(lookups + 2);
    await merchants.revokeKey({ inTransaction: true }, key.keyId, new Date().toISOString());
    feed.gap();
    feed.reliable = true;
    expect(await keys.resolve(key.apiKey)).toBeUndefined();
  });

  it('does not keep a lookup that was under way when a revocation was heard', async () => {
    const { keys, merchants, feed, key } = await setupWithFeed();
    const hash = hashApiKey(key.apiKey);
    // The lookup reads the key as active; the revocation is heard before the lookup returns.
    const original = merchants.findActiveKey.bind(merchants);
    merchants.findActiveKey = async (h: string) => {
      const found = await original(h);
      await merchants.revokeKey({ inTransaction: true }, key.keyId, new Date().toISOString());
      feed.deliver(hash);
      return found;
    };
    expect(await keys.resolve(key.apiKey)).toBeDefined();
    merchants.findActiveKey = original;
    expect(await keys.resolve(key.apiKey)).toBeUndefined();
  });
});
