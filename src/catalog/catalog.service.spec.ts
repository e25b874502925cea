import { InMemoryAuditEvents } from '../../test/fakes/in-memory-audit.js';
import { InMemoryCryptoPairs } from '../../test/fakes/in-memory-crypto-pairs.js';
import { InMemoryTransactions } from '../../test/fakes/in-memory-transactions.js';
import { apiErrorOf } from '../../test/support/api-error-of.js';
import { loadConfig } from '../config/app-config.js';
import { CatalogService } from './catalog.service.js';
import type { OperatorCall } from '../access/operator-call.js';
import type { CatalogQuery } from './dto/catalog-query.dto.js';
import { testAuditTrail, testCatalogService } from '../../test/fakes/no-op-ports.js';

const ALL: CatalogQuery = { page: 0, size: 10 };
const IE: CatalogQuery = { countryCode: 'IE', page: 0, size: 10 };

function setup(ttlSeconds = '60') {
  const pairs = new InMemoryCryptoPairs();
  const events = new InMemoryAuditEvents();
  const transactions = new InMemoryTransactions(pairs, events);
  const config = loadConfig({ CATALOG_CACHE_TTL_SECONDS: ttlSeconds });
  const audit = testAuditTrail(events, transactions);
  const service = testCatalogService(pairs, transactions, config, audit);
  return { service, pairs, transactions, events };
}

const pair = (currencyCode: string, protocol: string, countryCode: string, enabled = true) => ({
  currencyCode,
  currencyName: `${currencyCode} coin`,
  protocol,
  countryCode,
  enabled,
});

describe('CatalogService', () => {
  it('lists enabled pairs only, in currency, protocol, country order, with the total', async () => {
    const { service } = setup();
    await service.create(pair('USDT', 'TRC20', 'IE'));
    await service.create(pair('BTC', 'BITCOIN', 'IE'));
    await service.create(pair('USDT', 'ERC20', 'IE'));
    await service.create(pair('ETH', 'ERC20', 'IE', false));
    const page = await service.listEnabled(ALL);
    expect(page).toEqual({
      items: [
        { currencyCode: 'BTC', currencyName: 'BTC coin', protocol: 'BITCOIN', countryCode: 'IE' },
        { currencyCode: 'USDT', currencyName: 'USDT coin', protocol: 'ERC20', countryCode: 'IE' },
        { currencyCode: 'USDT', currencyName: 'USDT coin', protocol: 'TRC20', countryCode: 'IE' },
      ],
      page: { size: 10, page: 0, total: 3 },
    });
  });

  it('serves the same question from the cache: one query, the same frozen page', async () => {
    const { service, pairs } = setup();
    await service.create(pair('USDT', 'TRC20', 'IE'));
    const first = await service.listEnabled(IE);
    const second = await service.listEnabled({ ...IE });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(pairs.pageQueries).toBe(1);
  });

  it('never answers one question with the cached answer of another', async () => {
    const { service, pairs } = setup();
    await service.create(pair('USDT', 'TRC20', 'IE'));
    await service.create(pair('USDT', 'TRC20', 'DE'));
    const questions: CatalogQuery[] = [
      ALL,
      IE,
      { countryCode: 'DE', page: 0, size: 10 },
      { currencyCode: 'USDT', page: 0, size: 10 },
      { protocol: 'TRC20', page: 0, size: 10 },
      { page: 1, size: 10 },
      { page: 0, size: 1 },
    ];
    for (const question of questions) await service.listEnabled(question);
    expect(pairs.pageQueries).toBe(questions.length);
    for (const question of questions) await service.listEnabled(question);
    expect(pairs.pageQueries).toBe(questions.length);
  });

  it.each([
    ['a creation', (s: CatalogService) => s.create(pair('ETH', 'ERC20', 'IE'))],
    ['a rename', (s: CatalogService) => s.update(1, { currencyName: 'Tether USD' })],
    ['disabling', (s: CatalogService) => s.update(1, { enabled: false })],
    ['a removal', (s: CatalogService) => s.remove(1)],
  ])('shows %s on the next read', async (_label, write) => {
    const { service } = setup();
    await service.create(pair('USDT', 'TRC20', 'IE'));
    const before = await service.listEnabled(IE);
    await write(service);
    const after = await service.listEnabled(IE);
    expect(after).not.toEqual(before);
  });

  it('sees a write made by another process through the revision, despite its cache', async () => {
    const { service, pairs, transactions } = setup();
    await service.create(pair('USDT', 'TRC20', 'IE'));
    const before = await service.listEnabled(IE);
    // Another process (the seed script) writes and bumps the revision; this cache is untouched.
    await transactions.run(async (tx) => {
      await pairs.update(tx, 1, { currencyName: 'Renamed elsewhere' });
      await pairs.bumpRevision();
    });
    const after = await service.listEnabled(IE);
    expect(after.items[0].currencyName).toBe('Renamed elsewhere');
    expect(before.items[0].currencyName).not.toBe('Renamed elsewhere');
  });

  it('queries every time when the cache lifetime is 0', async () => {
    const { service, pairs } = setup('0');
    await service.listEnabled(IE);
    await service.listEnabled(IE);
    expect(pairs.pageQueries).toBe(2);
  });

  it('refuses a duplicate triple with 409 and stores nothing', async () => {
    const { service, pairs } = setup();
    await service.create(pair('USDT', 'TRC20', 'IE'));
    const error = await apiErrorOf(service.create(pair('USDT', 'TRC20', 'IE')));
    expect(error.code).toBe('CONFLICT');
    expect(pairs.all()).toHaveLength(1);
  });

  it('answers 404 NOT_FOUND for an unknown pair and leaves the revision alone', async () => {
    const { service, pairs } = setup();
    const revision = await pairs.revision();
    expect((await apiErrorOf(service.update(7, { enabled: false }))).code).toBe('NOT_FOUND');
    expect((await apiErrorOf(service.remove(7))).code).toBe('NOT_FOUND');
    expect(await pairs.revision()).toBe(revision);
  });

  it('upserts seed pairs by triple, counting only real changes, leaving the revision to the caller', async () => {
    const { service, pairs, transactions } = setup();
    const inputs = [pair('USDT', 'TRC20', 'IE'), pair('BTC', 'BITCOIN', 'DE')];
    const revision = await pairs.revision();
    expect(await transactions.run((tx) => service.upsertBatch(tx, inputs))).toBe(2);
    expect(await transactions.run((tx) => service.upsertBatch(tx, inputs))).toBe(0);
    const renamed = [{ ...inputs[0], currencyName: 'Tether' }, inputs[1]];
    expect(await transactions.run((tx) => service.upsertBatch(tx, renamed))).toBe(1);
    expect(pairs.all().map((p) => p.currencyName)).toEqual(['Tether', 'BTC coin']);
    expect(await pairs.revision()).toBe(revision);
  });

  describe('in the audit trail', () => {
    const alice: OperatorCall = {
      operator: { kind: 'operator', id: 'op-1', name: 'alice' },
      action: 'updateCryptoPair',
      requestId: 'req-1',
      status: 200,
    };

    it('records each change by an operator with its fields old and new, in its transaction', async () => {
      const { service, events } = setup();
      await service.create(pair('USDT', 'TRC20', 'IE'), {
        ...alice,
        action: 'createCryptoPair',
        status: 201,
      });
      await service.update(1, { enabled: false }, alice);
      await service.remove(1, { ...alice, action: 'deleteCryptoPair', status: 204 });
      expect(
        events
          .all()
          .map(({ action, target, outcome, changes }) => ({ action, target, outcome, changes })),
      ).toEqual([
        {
          action: 'createCryptoPair',
          target: '1',
          outcome: 201,
          changes: {
            currencyCode: { old: null, new: 'USDT' },
            currencyName: { old: null, new: 'USDT coin' },
            protocol: { old: null, new: 'TRC20' },
            countryCode: { old: null, new: 'IE' },
            enabled: { old: null, new: true },
          },
        },
        {
          action: 'updateCryptoPair',
          target: '1',
          outcome: 200,
          changes: { enabled: { old: true, new: false } },
        },
        {
          action: 'deleteCryptoPair',
          target: '1',
          outcome: 204,
          changes: {
            currencyCode: { old: 'USDT', new: null },
            currencyName: { old: 'USDT coin', new: null },
            protocol: { old: 'TRC20', new: null },
            countryCode: { old: 'IE', new: null },
            enabled: { old: false, new: null },
          },
        },
      ]);
      expect(events.all().map((e) => e.operatorName)).toEqual(['alice', 'alice', 'alice']);
    });

    it('records nothing for a change that changes nothing, or that fails', async () => {
      const { service, events } = setup();
      await service.create(pair('USDT', 'TRC20', 'IE'));
      await service.update(1, { enabled: true }, alice);
      await apiErrorOf(service.create(pair('USDT', 'TRC20', 'IE'), alice));
      await apiErrorOf(service.update(7, { enabled: false }, alice));
      expect(events.all()).toEqual([]);
    });
  });
});
