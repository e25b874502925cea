import { InMemoryCryptoPairs } from '../../test/fakes/in-memory-crypto-pairs.js';
import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryOperators } from '../../test/fakes/in-memory-operators.js';
import { InMemoryPaymentSessions } from '../../test/fakes/in-memory-payment-sessions.js';
import { InMemoryCallbackOutbox } from '../../test/fakes/in-memory-callback-outbox.js';
import { InMemoryTransactions } from '../../test/fakes/in-memory-transactions.js';
import { InMemoryAuditEvents } from '../../test/fakes/in-memory-audit.js';
import { loadConfig } from '../config/app-config.js';
import { merchantServices } from '../../test/fakes/merchant-services.js';
import { OperatorTokensService } from '../operators/operator-tokens.service.js';
import { OperatorService } from '../operators/operator.service.js';
import { hashOperatorToken } from '../operators/operator-token.js';
import type { SeedFileDto } from './seed-file.dto.js';
import { SeedRejected, SeedRunner } from './seed-runner.js';
import {
  SINGLE_PROCESS_FEED,
  testAuditTrail,
  testPaymentSessionService,
  testCatalogService,
} from '../../test/fakes/no-op-ports.js';

function setup() {
  const pairs = new InMemoryCryptoPairs();
  const merchantStore = new InMemoryMerchants();
  const sessions = new InMemoryPaymentSessions();
  const outbox = new InMemoryCallbackOutbox();
  const events = new InMemoryAuditEvents();
  const operatorStore = new InMemoryOperators();
  const transactions = new InMemoryTransactions(
    pairs,
    merchantStore,
    sessions,
    outbox,
    events,
    operatorStore,
  );
  const audit = testAuditTrail(events, transactions);
  const catalog = testCatalogService(pairs, transactions, loadConfig({}), audit);
  const { merchants } = merchantServices(merchantStore, transactions);
  const sessionService = testPaymentSessionService(
    sessions,
    merchants,
    transactions,
    outbox,
    audit,
  );
  const config = loadConfig({});
  const operators = new OperatorService(
    operatorStore,
    transactions,
    new OperatorTokensService(config, operatorStore, transactions, SINGLE_PROCESS_FEED),
    audit,
    SINGLE_PROCESS_FEED,
  );
  const runner = new SeedRunner(transactions, catalog, merchants, sessionService, operators);
  return { runner, pairs, merchantStore, sessions, catalog, operatorStore, events };
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
      operators: { given: 0, created: 0, changed: 0 },
      tokens: [],
    });
    expect(await runner.run(SEED)).toEqual({
      cryptoPairs: { given: 1, changed: 0 },
      merchants: { given: 1, changed: 0 },
      paymentSessions: { created: 0, updated: 0, unchanged: 2 },
      operators: { given: 0, created: 0, changed: 0 },
      tokens: [],
    });
  });

  it('creates operators with tokens to show once, stored hashed; a new role changes, not recreates', async () => {
    const { runner, operatorStore, events } = setup();
    const file = {
      operators: [
        { name: 'alice', role: 'payments' },
        { name: 'dashboard', role: 'viewer' },
      ],
    } as SeedFileDto;
    const first = await runner.run(file);
    expect(first.operators).toEqual({ given: 2, created: 2, changed: 0 });
    expect(first.tokens.map(({ name, role }) => ({ name, role }))).toEqual(file.operators);
    const stored = operatorStore.all();
    first.tokens.forEach(({ token }, i) => {
      expect(token).toMatch(/^op_[A-Za-z0-9_-]{43,}$/);
      expect(stored[i].tokenHash).toBe(hashOperatorToken(token));
      expect(JSON.stringify(stored[i])).not.toContain(token);
    });
    expect(await operatorStore.findActive(hashOperatorToken(first.tokens[0].token))).toEqual(
      expect.objectContaining({ name: 'alice', role: 'payments' }),
    );

    const again = await runner.run(file);
    expect(again.operators).toEqual({ given: 2, created: 0, changed: 0 });
    expect(again.tokens).toEqual([]);

    const promoted = await runner.run({
      operators: [{ name: 'alice', role: 'admin' }],
    } as SeedFileDto);
    expect(promoted.operators).toEqual({ given: 1, created: 0, changed: 1 });
    expect(operatorStore.all().map(({ name, role }) => ({ name, role }))).toEqual([
      { name: 'alice', role: 'admin' },
      { name: 'dashboard', role: 'viewer' },
    ]);
    // Audited as the system's doing, the token never in it.
    const audited = events.all();
    expect(audited.map((e) => [e.operatorId, e.action, e.outcome])).toEqual([
      ['system', 'seedOperator', 201],
      ['system', 'seedOperator', 201],
      ['system', 'seedOperator', 200],
    ]);
    expect(audited[2].changes).toEqual({ role: { old: 'payments', new: 'admin' } });
    expect(JSON.stringify(audited)).not.toContain(first.tokens[0].token);
  });

  it('dry run: counts the operators it would create, stores none and shows no token', async () => {
    const { runner, operatorStore, events } = setup();
    const summary = await runner.run(
      { operators: [{ name: 'alice', role: 'payments' }] } as SeedFileDto,
      { dryRun: true },
    );
    expect(summary.operators).toEqual({ given: 1, created: 1, changed: 0 });
    expect(summary.tokens).toEqual([]);
    expect(operatorStore.all()).toEqual([]);
    expect(events.all()).toEqual([]);
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
