import { createCache } from 'cache-manager';
import { InMemoryCryptoPairs } from '../../test/fakes/in-memory-crypto-pairs.js';
import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryPaymentSessions } from '../../test/fakes/in-memory-payment-sessions.js';
import { InMemoryCallbackOutbox } from '../../test/fakes/in-memory-callback-outbox.js';
import { InMemoryTransactions, testSecretBox } from '../../test/fakes/in-memory-transactions.js';
import { CatalogService } from '../catalog/catalog.service.js';
import { boundedMemoryStore } from '../common/cache/memory-store.js';
import { loadConfig } from '../config/app-config.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import type { SeedFileDto } from './seed-file.dto.js';
import { SeedRejected, SeedRunner } from './seed-runner.js';

function setup() {
  const pairs = new InMemoryCryptoPairs();
  const merchantStore = new InMemoryMerchants();
  const sessions = new InMemoryPaymentSessions();
  const outbox = new InMemoryCallbackOutbox();
  const transactions = new InMemoryTransactions(pairs, merchantStore, sessions, outbox);
  const cache = createCache({ stores: [boundedMemoryStore(1024 * 1024)] });
  const catalog = new CatalogService(pairs, transactions, cache, loadConfig({}));
  const merchants = new MerchantService(merchantStore, transactions, testSecretBox());
  const sessionService = new PaymentSessionService(sessions, merchants, transactions, outbox);
  const runner = new SeedRunner(transactions, catalog, merchants, sessionService);
  return { runner, pairs, merchantStore, sessions, catalog };
}

const SEED = {
  cryptoPairs: [
    { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
  ],
  merchants: [{ id: 'acme', name: 'Acme', apiKeys: ['k'.repeat(32)] }],
  paymentSessions: [
    { validationKey: 'vk_1', merchantId: 'acme', status: 'PENDING' },
    { validationKey: 'vk_2', merchantId: 'acme', status: 'FAILED', errorMessage: 'Declined' },
  ],
} as SeedFileDto;

describe('SeedRunner', () => {
  it('applies every section, then a re-run of the same file changes nothing', async () => {
    const { runner } = setup();
    expect(await runner.run(SEED)).toEqual({
      cryptoPairs: { given: 1, changed: 1 },
      merchants: { given: 1, changed: 1 },
      paymentSessions: { created: 2, updated: 0, unchanged: 0 },
    });
    expect(await runner.run(SEED)).toEqual({
      cryptoPairs: { given: 1, changed: 0 },
      merchants: { given: 1, changed: 0 },
      paymentSessions: { created: 0, updated: 0, unchanged: 2 },
    });
  });

  it('writes nothing at all when one record is refused, and names every refused record', async () => {
    const { runner, pairs, merchantStore, sessions } = setup();
    await runner.run({ merchants: SEED.merchants, paymentSessions: SEED.paymentSessions });
    const changed = {
      ...SEED,
      cryptoPairs: [{ ...SEED.cryptoPairs![0], countryCode: 'DE' }],
      merchants: [{ id: 'globex', name: 'Globex' }],
      paymentSessions: [
        { validationKey: 'vk_3', merchantId: 'acme', status: 'PENDING' },
        { validationKey: 'vk_2', merchantId: 'acme', status: 'PENDING' },
        { validationKey: 'vk_4', merchantId: 'nobody', status: 'PENDING' },
      ],
    } as SeedFileDto;
    const error = await runner.run(changed).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SeedRejected);
    expect((error as SeedRejected).errors).toEqual([
      expect.objectContaining({ field: 'paymentSessions[1].status' }),
      expect.objectContaining({ field: 'paymentSessions[2].merchantId' }),
    ]);
    expect(pairs.all()).toEqual([]);
    expect(sessions.stored('vk_3')).toBeUndefined();
    expect(sessions.stored('vk_2')?.status).toBe('FAILED');
    expect(merchantStore.keys()).toHaveLength(1);
    expect(await merchantStore.find({ inTransaction: true }, 'globex')).toBeUndefined();
  });

  it('dry run: the same summary as the real run, and every store left as it was', async () => {
    const { runner, pairs, merchantStore, sessions } = setup();
    const dry = await runner.run(SEED, { dryRun: true });
    expect(pairs.all()).toEqual([]);
    expect(merchantStore.keys()).toEqual([]);
    expect(sessions.stored('vk_1')).toBeUndefined();
    expect(await runner.run(SEED)).toEqual(dry);
    expect(dry.paymentSessions).toEqual({ created: 2, updated: 0, unchanged: 0 });
  });

  it('dry run: refuses exactly what the real run refuses', async () => {
    const { runner, sessions } = setup();
    await runner.run(SEED);
    const changed = {
      paymentSessions: [
        { validationKey: 'vk_2', merchantId: 'acme', status: 'PENDING' },
        { validationKey: 'vk_5', merchantId: 'nobody', status: 'PENDING' },
      ],
    } as SeedFileDto;
    const refusal = (dryRun: boolean) =>
      runner.run(changed, { dryRun }).then(
        () => undefined,
        (e: unknown) => e,
      );
    const dry = await refusal(true);
    const real = await refusal(false);
    expect(dry).toBeInstanceOf(SeedRejected);
    expect((dry as SeedRejected).errors).toEqual((real as SeedRejected).errors);
    expect((dry as SeedRejected).errors.map((e) => e.field)).toEqual([
      'paymentSessions[0].status',
      'paymentSessions[1].merchantId',
    ]);
    expect(sessions.stored('vk_2')?.status).toBe('FAILED');
  });

  it('dry run: runs the preparation inside the transaction it rolls back', async () => {
    const { runner, merchantStore } = setup();
    const summary = await runner.run(
      {
        paymentSessions: [{ validationKey: 'vk_9', merchantId: 'made', status: 'PENDING' }],
      } as SeedFileDto,
      {
        dryRun: true,
        prepare: async (tx) => {
          await merchantStore.insert(tx, { id: 'made', name: 'Made in prepare' });
        },
      },
    );
    expect(summary.paymentSessions.created).toBe(1);
    expect(await merchantStore.find({ inTransaction: true }, 'made')).toBeUndefined();
  });

  it('counts the changes of every batch of pairs, batches written two at a time', async () => {
    const { runner } = setup();
    const cryptoPairs = Array.from({ length: 2500 }, (_, i) => ({
      currencyCode: `C${i}`,
      currencyName: 'Coin',
      protocol: 'P',
      countryCode: 'IE',
    }));
    const summary = await runner.run({ cryptoPairs } as SeedFileDto);
    expect(summary.cryptoPairs).toEqual({ given: 2500, changed: 2500 });
  });
});
