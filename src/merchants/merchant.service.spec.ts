import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryTransactions } from '../../test/fakes/in-memory-transactions.js';
import { apiErrorOf } from '../../test/support/api-error-of.js';
import { hashApiKey } from './api-key.js';
import { DEMO_MERCHANT_ID, MerchantService } from './merchant.service.js';

function setup() {
  const merchants = new InMemoryMerchants();
  const transactions = new InMemoryTransactions(merchants);
  return { service: new MerchantService(merchants, transactions), merchants, transactions };
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
