import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config/app-config.js';
import type { PaymentReportDto } from '../payment-status/dto/payment-report.dto.js';
import { PersonalDataHolders } from '../payment-status/personal-data-holders.js';
import { FixedWindowStorage } from '../rate-limits/fixed-window-storage.js';
import { InMemoryAuditEvents } from '../../test/fakes/in-memory-audit.js';
import { InMemoryCallbackOutbox } from '../../test/fakes/in-memory-callback-outbox.js';
import { InMemoryCheckouts } from '../../test/fakes/in-memory-checkouts.js';
import { InMemoryCryptoPairs } from '../../test/fakes/in-memory-crypto-pairs.js';
import { depositServices } from '../../test/fakes/deposit-services.js';
import {
  InMemoryDepositKeys,
  InMemoryDeposits,
  InMemoryRates,
} from '../../test/fakes/in-memory-deposits.js';
import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryPaymentSessions } from '../../test/fakes/in-memory-payment-sessions.js';
import { InMemoryTransactions } from '../../test/fakes/in-memory-transactions.js';
import { merchantServices } from '../../test/fakes/merchant-services.js';
import { apiErrorOf } from '../../test/support/api-error-of.js';
import { AccountNumbers } from './account-numbers.js';
import { CHECKOUT_REFUSALS_LIMIT, CheckoutRefusals } from './checkout-refusals.js';
import { secretHash } from './checkout-secrets.js';
import { CHECKOUT_BATCH, CheckoutService } from './checkout.service.js';
import type { InitIframeDto } from './dto/init-iframe.dto.js';
import { SANDBOX_DEPOSIT_KEYS } from '../deposits/sandbox-keys.js';
import {
  testAuditTrail,
  testPaymentSessionService,
  testCatalogService,
  UNCOUNTED_REFUSALS,
} from '../../test/fakes/no-op-ports.js';

const SHOP = 'shop';
const OTHER = 'other';
const ADDRESS = 'ip:203.0.113.7';
const T0 = Date.parse('2026-03-01T12:00:00Z');
const TTL_MS = 1_800_000;
const USDT_ON_TRON = {
  network: 'tron',
  tokenContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  decimals: 6,
  confirmations: 20,
} as const;
const BITCOIN = { network: 'bitcoin', decimals: 8, confirmations: 3 } as const;

function request(validationKey: string, overrides: Partial<InitIframeDto> = {}): InitIframeDto {
  return {
    money: { amount: '10.00', currency: 'EUR' },
    client: {
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '871234567',
      dialingCode: '+353',
      nationality: 'IE',
      emailAddress: 'ann@example.org',
      dob: '1990-01-31',
    },
    address: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
    validationKey,
    clientReference: 'cust-42',
    traceId: 'order-9001',
    description: 'order-9001',
    destinationAccountNumber: '5001000001223369',
    brandId: '001',
    returnUrl: 'https://shop.example/return',
    errorUrl: 'https://shop.example/error',
    languagePreference: 'EN',
    ...overrides,
  } as InitIframeDto;
}

/** The checkout service wired as its module wires it, over in-memory stores. */
async function setup(env: Record<string, string> = {}) {
  const config = loadConfig({ CHECKOUT_SANDBOX: 'true', ...env });
  const merchantStore = new InMemoryMerchants();
  const sessions = new InMemoryPaymentSessions();
  const outbox = new InMemoryCallbackOutbox();
  const events = new InMemoryAuditEvents();
  const pairs = new InMemoryCryptoPairs();
  const checkouts = new InMemoryCheckouts();
  const depositStores = {
    keys: new InMemoryDepositKeys(),
    rates: new InMemoryRates(),
    deposits: new InMemoryDeposits(),
    merchants: merchantStore,
  };
  const transactions = new InMemoryTransactions(
    sessions,
    merchantStore,
    outbox,
    events,
    pairs,
    checkouts,
    depositStores.keys,
    depositStores.rates,
    depositStores.deposits,
  );
  const audit = testAuditTrail(events, transactions);
  const { merchants } = merchantServices(merchantStore, transactions, undefined, undefined, audit);
  const holders = new PersonalDataHolders();
  const paymentSessions = testPaymentSessionService(
    sessions,
    merchants,
    transactions,
    outbox,
    audit,
    holders,
  );
  const catalog = testCatalogService(pairs, transactions, config, audit);
  const refusals = new CheckoutRefusals(new FixedWindowStorage(), UNCOUNTED_REFUSALS);
  const deposits = depositServices(config, depositStores, transactions, audit, paymentSessions);
  const service = new CheckoutService(
    config,
    checkouts,
    paymentSessions,
    merchants,
    catalog,
    transactions,
    refusals,
    new AccountNumbers(randomBytes(32)),
    deposits.payments,
    deposits.deposits,
    deposits.sandboxDeposits,
    holders,
    deposits.paidReports,
  );
  await merchants.createMerchant({ id: SHOP, name: 'Shop' });
  await merchants.createMerchant({ id: OTHER, name: 'Other' });
  for (const [currencyCode, protocol, countryCode, settlement] of [
    ['USDT', 'TRC20', 'IE', USDT_ON_TRON],
    ['BTC', 'BITCOIN', 'IE', BITCOIN],
    ['USDC', 'BASE', 'DE', undefined],
  ] as const) {
    await catalog.create({
      currencyCode,
      currencyName: `${currencyCode} coin`,
      protocol,
      countryCode,
      enabled: true,
      ...(settlement ? { settlement } : {}),
    });
  }
  // The shop's pairs can be paid on chain: its keys, and prices in its sessions' currency.
  await deposits.keys.put(SHOP, 'tron', SANDBOX_DEPOSIT_KEYS.tron);
  await deposits.keys.put(SHOP, 'bitcoin', SANDBOX_DEPOSIT_KEYS.bitcoin);
  await deposits.rates.put('USDT', 'EUR', '0.92', undefined, T0);
  await deposits.rates.put('BTC', 'EUR', '90000', undefined, T0);
  return { service, paymentSessions, sessions, checkouts, outbox, transactions };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** A checkout opened at T0, its page read, a pair chosen: ready for its outcome. */
async function chosen(s: Setup, key: string) {
  const { initializationToken: token } = await s.service.initIframe(SHOP, request(key), T0);
  const first = await s.service.page(token, ADDRESS, T0);
  await s.service.choose(
    token,
    first.nonce,
    { currencyCode: 'USDT', protocol: 'TRC20' },
    ADDRESS,
    T0,
  );
  const second = await s.service.page(token, ADDRESS, T0);
  return { token, nonce: second.nonce! };
}

const history = async (s: Setup, key: string) =>
  (await s.paymentSessions.history(key))?.map((t) => [t.fromStatus, t.toStatus]);

describe('CheckoutService: init-iframe', () => {
  it('creates the merchant its PENDING session and a token stored only as its hash', async () => {
    const s = await setup();
    const answer = await s.service.initIframe(SHOP, request('vk_1'), T0);
    expect(answer).toEqual({
      traceId: 'order-9001',
      initializationToken: expect.stringMatching(/^ct_[\w-]{43}$/),
    });
    expect(s.sessions.stored('vk_1')).toMatchObject({ merchantId: SHOP, status: 'PENDING' });
    expect(s.checkouts.tokenHashes()).toEqual([secretHash(answer.initializationToken)]);
    expect(s.checkouts.stored('vk_1')).toMatchObject({
      merchantId: SHOP,
      state: 'open',
      expiresAt: T0 + TTL_MS,
      request: { money: { amountMinor: 1000, currency: 'EUR' } },
    });
    // PENDING calls nobody back.
    expect(s.outbox.callbacks).toEqual([]);
  });

  it('answers the same request again with the same session and a new token; both open it', async () => {
    const s = await setup();
    const first = await s.service.initIframe(SHOP, request('vk_1'), T0);
    // The same amount written as a number is the same request.
    const again = await s.service.initIframe(
      SHOP,
      request('vk_1', { money: { amount: 10, currency: 'EUR' } }),
      T0 + 1000,
    );
    expect(again.initializationToken).not.toBe(first.initializationToken);
    expect(await history(s, 'vk_1')).toEqual([[null, 'PENDING']]);
    for (const token of [first.initializationToken, again.initializationToken]) {
      expect((await s.service.page(token, ADDRESS, T0 + 2000)).stage).toBe('choose');
    }
    // The checkout lives as long as its newest token.
    expect(s.checkouts.stored('vk_1')?.expiresAt).toBe(T0 + 1000 + TTL_MS);
  });

  it('opens a cancelled session again, PENDING, for the same request', async () => {
    const s = await setup();
    const { initializationToken: token } = await s.service.initIframe(SHOP, request('vk_1'), T0);
    const { nonce } = await s.service.page(token, ADDRESS, T0);
    await s.service.cancel(token, nonce, ADDRESS, T0);
    await s.service.initIframe(SHOP, request('vk_1'), T0);
    expect(s.sessions.stored('vk_1')?.status).toBe('PENDING');
    expect(s.checkouts.stored('vk_1')?.state).toBe('open');
    expect(await history(s, 'vk_1')).toEqual([
      [null, 'PENDING'],
      ['PENDING', 'NOT_COMPLETED'],
      ['NOT_COMPLETED', 'PENDING'],
    ]);
  });

  it('keeps the account number masked, never in clear, and still tells another number apart', async () => {
    const s = await setup();
    await s.service.initIframe(SHOP, request('vk_1'), T0);
    const stored = s.checkouts.stored('vk_1')!.request;
    expect(stored.destinationAccountNumber).toBe('5001XXXXXXXX3369');
    expect(JSON.stringify(stored)).not.toContain('5001000001223369');
    expect(JSON.stringify(stored)).not.toContain('00000122');
    // The same request again is the same; a number that differs only where it is masked is not.
    await s.service.initIframe(SHOP, request('vk_1'), T0);
    const other = request('vk_1', { destinationAccountNumber: '5001000091223369' });
    expect((await apiErrorOf(s.service.initIframe(SHOP, other, T0))).status).toBe(409);
  });

  it('refuses another body, another merchant and a key in use alike (409), changing nothing', async () => {
    const s = await setup();
    await s.service.initIframe(SHOP, request('vk_1'), T0);
    await s.paymentSessions.report('vk_operator', {
      merchantId: SHOP,
      status: 'PENDING',
    } as PaymentReportDto);
    const tokensBefore = s.checkouts.tokenHashes();
    const refusals = [
      await apiErrorOf(
        s.service.initIframe(SHOP, request('vk_1', { description: 'another order' }), T0),
      ),
      await apiErrorOf(s.service.initIframe(OTHER, request('vk_1'), T0)),
      await apiErrorOf(s.service.initIframe(SHOP, request('vk_operator'), T0)),
    ];
    for (const error of refusals) {
      expect(error.status).toBe(409);
      expect(error.items).toEqual(refusals[0].items);
      expect(error.items[0]).toMatchObject({ errorCode: 'CONFLICT', field: 'validationKey' });
    }
    expect(s.checkouts.tokenHashes()).toEqual(tokensBefore);
    expect(s.checkouts.stored('vk_operator')).toBeUndefined();
    expect(s.checkouts.stored('vk_1')?.request.description).toBe('order-9001');
  });

  it('refuses the same request once the session is final (409 naming the status)', async () => {
    const s = await setup();
    const { token, nonce } = await chosen(s, 'vk_1');
    await s.service.decide(token, nonce, { outcome: 'paid' }, ADDRESS, T0);
    const error = await apiErrorOf(s.service.initIframe(SHOP, request('vk_1'), T0));
    expect(error.status).toBe(409);
    expect(error.items[0].message).toMatch(/SUCCESSFUL, a final state/);
  });

  it('refuses a merchant that does not exist (AUTH_MODE=none without the demo merchant)', async () => {
    const s = await setup();
    const error = await apiErrorOf(s.service.initIframe(undefined, request('vk_1'), T0));
    expect(error.status).toBe(400);
    expect(error.items[0].field).toBe('key');
    expect(s.sessions.stored('vk_1')).toBeUndefined();
  });
});

describe('CheckoutService: the page and its nonce', () => {
  it('offers the enabled pairs of the customer’s country, and no personal data', async () => {
    const s = await setup();
    const { initializationToken: token } = await s.service.initIframe(SHOP, request('vk_1'), T0);
    const view = await s.service.page(token, ADDRESS, T0);
    expect(view.pairs.map((p) => `${p.currencyCode}/${p.protocol}`)).toEqual([
      'BTC/BITCOIN',
      'USDT/TRC20',
    ]);
    expect(view).toMatchObject({ merchantName: 'Shop', stage: 'choose', sandbox: true });
    expect(view.frameAncestors).toEqual(['https://shop.example']);
    expect(JSON.stringify(view)).not.toMatch(/Ann|Dublin|ann@example/);
  });

  it('takes each nonce once; a newer page makes the older nonce stale', async () => {
    const s = await setup();
    const { initializationToken: token } = await s.service.initIframe(SHOP, request('vk_1'), T0);
    const pair = { currencyCode: 'USDT', protocol: 'TRC20' };
    const older = (await s.service.page(token, ADDRESS, T0)).nonce;
    const newer = (await s.service.page(token, ADDRESS, T0)).nonce;
    expect(newer).not.toBe(older);
    for (const nonce of [older, undefined, '', 'A'.repeat(32), 42]) {
      const error = await apiErrorOf(s.service.choose(token, nonce, pair, ADDRESS, T0));
      expect([error.status, error.items[0].field]).toEqual([403, 'nonce']);
    }
    await s.service.choose(token, newer, pair, ADDRESS, T0);
    const spent = await apiErrorOf(s.service.cancel(token, newer, ADDRESS, T0));
    expect(spent.status).toBe(403);
    expect(s.sessions.stored('vk_1')?.status).toBe('PENDING');
    expect(s.checkouts.stored('vk_1')?.chosenPair).toBe('USDT/TRC20');
  });

  it('refuses a pair the page does not offer (400) without spending the nonce', async () => {
    const s = await setup();
    const { initializationToken: token } = await s.service.initIframe(SHOP, request('vk_1'), T0);
    const { nonce } = await s.service.page(token, ADDRESS, T0);
    const refused = await apiErrorOf(
      s.service.choose(token, nonce, { currencyCode: 'USDC', protocol: 'BASE' }, ADDRESS, T0),
    );
    expect([refused.status, refused.items[0].field]).toEqual([400, 'currencyCode']);
    await s.service.choose(token, nonce, { currencyCode: 'BTC', protocol: 'BITCOIN' }, ADDRESS, T0);
  });

  it('answers an unknown or malformed token with 404, and blocks an address that keeps guessing', async () => {
    const s = await setup();
    for (const token of ['nope', `ct_${'x'.repeat(43)}`]) {
      expect((await apiErrorOf(s.service.page(token, ADDRESS, T0))).status).toBe(404);
    }
    for (let i = 2; i < CHECKOUT_REFUSALS_LIMIT; i++) {
      await apiErrorOf(s.service.state(`ct_${String(i).padStart(43, 'y')}`, ADDRESS, T0));
    }
    const blocked = await apiErrorOf(s.service.page('nope', ADDRESS, T0));
    expect(blocked.status).toBe(429);
    // Even a valid token is refused from that address; another address is served.
    const { initializationToken: token } = await s.service.initIframe(SHOP, request('vk_1'), T0);
    expect((await apiErrorOf(s.service.page(token, ADDRESS, T0))).status).toBe(429);
    expect((await s.service.page(token, 'ip:198.51.100.1', T0)).stage).toBe('choose');
  });
});

describe('CheckoutService: outcomes only from PENDING', () => {
  it('pays: SUCCESSFUL made from the request, one callback to returnUrl, the checkout ended', async () => {
    const s = await setup();
    const { token, nonce } = await chosen(s, 'vk_1');
    const state = await s.service.decide(token, nonce, { outcome: 'paid' }, ADDRESS, T0);
    expect(state).toEqual({ status: 'SUCCESSFUL', stage: 'ended', outcome: 'success' });
    expect(JSON.parse(String(s.sessions.stored('vk_1')?.paymentResponse))).toMatchObject({
      money: { amountMinor: 1000, currency: 'EUR' },
      totalFees: { amountMinor: 0, currency: 'EUR' },
      accountNumber: '5001XXXXXXXX3369',
      traceId: 'order-9001',
      clientReference: 'cust-42',
      paymentMethod: 'USDT/TRC20',
      customerFirstName: 'Ann',
      customerCountryCode: 'IE',
      transactionReference: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(s.outbox.callbacks.map((c) => [c.validationKey, c.status, c.url])).toEqual([
      ['vk_1', 'SUCCESSFUL', 'https://shop.example/return'],
    ]);
    expect(s.checkouts.stored('vk_1')?.state).toBe('ended');
  });

  it('fails with the reason, and cancels, each with one callback to errorUrl', async () => {
    const s = await setup();
    const failing = await chosen(s, 'vk_failed');
    await s.service.decide(
      failing.token,
      failing.nonce,
      { outcome: 'failed', reason: 'DECLINED' },
      ADDRESS,
      T0,
    );
    expect(s.sessions.stored('vk_failed')).toMatchObject({
      status: 'FAILED',
      detailedStatus: 'DECLINED',
      errorMessage: 'Payment declined',
    });
    const { initializationToken: token } = await s.service.initIframe(
      SHOP,
      request('vk_cancelled'),
      T0,
    );
    const { nonce } = await s.service.page(token, ADDRESS, T0);
    expect(await s.service.cancel(token, nonce, ADDRESS, T0)).toEqual({
      status: 'NOT_COMPLETED',
      stage: 'ended',
      outcome: 'cancel',
      detailedStatus: 'ABANDONED_BY_USER',
    });
    expect(s.outbox.callbacks.map((c) => [c.validationKey, c.status, c.url])).toEqual([
      ['vk_failed', 'FAILED', 'https://shop.example/error'],
      ['vk_cancelled', 'NOT_COMPLETED', 'https://shop.example/error'],
    ]);
  });

  it('changes nothing once the session is final: 409, no transition, no callback', async () => {
    const s = await setup();
    const { token, nonce } = await chosen(s, 'vk_1');
    await s.service.decide(token, nonce, { outcome: 'paid' }, ADDRESS, T0);
    const view = await s.service.page(token, ADDRESS, T0);
    expect(view).toMatchObject({ stage: 'ended', ended: { status: 'SUCCESSFUL' } });
    expect(view.nonce).toBeUndefined();
    for (const action of [
      () => s.service.cancel(token, nonce, ADDRESS, T0),
      () => s.service.decide(token, nonce, { outcome: 'paid' }, ADDRESS, T0),
      () =>
        s.service.choose(token, nonce, { currencyCode: 'BTC', protocol: 'BITCOIN' }, ADDRESS, T0),
    ]) {
      expect((await apiErrorOf(action())).status).toBe(409);
    }
    expect(await history(s, 'vk_1')).toEqual([
      [null, 'PENDING'],
      ['PENDING', 'SUCCESSFUL'],
    ]);
    expect(s.outbox.callbacks).toHaveLength(1);
  });

  it('loses to the processor: a session the operator ended takes no page action (409)', async () => {
    const s = await setup();
    const { token, nonce } = await chosen(s, 'vk_1');
    await s.paymentSessions.report('vk_1', {
      merchantId: SHOP,
      status: 'FAILED',
      errorMessage: 'Declined by the processor',
    } as PaymentReportDto);
    const error = await apiErrorOf(
      s.service.decide(token, nonce, { outcome: 'paid' }, ADDRESS, T0),
    );
    expect(error.status).toBe(409);
    expect(s.sessions.stored('vk_1')?.status).toBe('FAILED');
    expect(await s.service.state(token, ADDRESS, T0)).toEqual({
      status: 'FAILED',
      stage: 'ended',
      outcome: 'fail',
    });
  });

  it('of two actions with one nonce exactly one wins', async () => {
    const s = await setup();
    const { token, nonce } = await chosen(s, 'vk_1');
    const results = await Promise.allSettled([
      s.service.decide(token, nonce, { outcome: 'paid' }, ADDRESS, T0),
      s.service.cancel(token, nonce, ADDRESS, T0),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await history(s, 'vk_1')).toHaveLength(2);
    expect(s.outbox.callbacks).toHaveLength(1);
  });

  it('needs a chosen pair before the outcome (409), and the sandbox for an outcome at all (403)', async () => {
    const s = await setup();
    const { initializationToken: token } = await s.service.initIframe(SHOP, request('vk_1'), T0);
    const { nonce } = await s.service.page(token, ADDRESS, T0);
    const early = await apiErrorOf(
      s.service.decide(token, nonce, { outcome: 'paid' }, ADDRESS, T0),
    );
    expect(early.status).toBe(409);

    const production = await setup({ CHECKOUT_SANDBOX: 'false' });
    const waiting = await chosen(production, 'vk_2');
    expect((await production.service.page(waiting.token, ADDRESS, T0)).sandbox).toBe(false);
    const refused = await apiErrorOf(
      production.service.decide(waiting.token, waiting.nonce, { outcome: 'paid' }, ADDRESS, T0),
    );
    expect(refused.status).toBe(403);
    expect(production.sessions.stored('vk_2')?.status).toBe('PENDING');
  });

  it('refuses an action with an expired token (409), though the nonce is current', async () => {
    const s = await setup();
    const { initializationToken: token } = await s.service.initIframe(SHOP, request('vk_1'), T0);
    const view = await s.service.page(token, ADDRESS, T0);
    const late = T0 + TTL_MS;
    expect((await s.service.page(token, ADDRESS, late)).stage).toBe('expired');
    const error = await apiErrorOf(s.service.cancel(token, view.nonce, ADDRESS, late));
    expect(error.status).toBe(409);
    expect(s.sessions.stored('vk_1')?.status).toBe('PENDING');
  });
});

describe('CheckoutService: expiry', () => {
  it('expires only open checkouts whose last token expired: NOT_COMPLETED (EXPIRED), one callback, once', async () => {
    const s = await setup();
    await s.service.initIframe(SHOP, request('vk_due'), T0);
    await s.service.initIframe(SHOP, request('vk_renewed'), T0);
    await s.service.initIframe(SHOP, request('vk_renewed'), T0 + 60_000);
    await s.service.initIframe(SHOP, request('vk_later'), T0 + 120_000);
    const paid = await chosen(s, 'vk_paid');
    await s.service.decide(paid.token, paid.nonce, { outcome: 'paid' }, ADDRESS, T0);

    expect(await s.service.expireDue(T0 + TTL_MS - 1)).toBe(0);
    expect(await s.service.expireDue(T0 + TTL_MS)).toBe(1);
    expect(s.sessions.stored('vk_due')).toMatchObject({
      status: 'NOT_COMPLETED',
      detailedStatus: 'EXPIRED',
    });
    expect(s.checkouts.stored('vk_due')?.state).toBe('ended');
    for (const key of ['vk_renewed', 'vk_later']) {
      expect(s.sessions.stored(key)?.status).toBe('PENDING');
    }
    expect(s.sessions.stored('vk_paid')?.status).toBe('SUCCESSFUL');
    // Once: the next sweep finds nothing more until the renewed token expires.
    expect(await s.service.expireDue(T0 + TTL_MS)).toBe(0);
    expect(await s.service.expireDue(T0 + 60_000 + TTL_MS)).toBe(1);
    expect(s.outbox.callbacks.map((c) => [c.validationKey, c.status])).toEqual([
      ['vk_paid', 'SUCCESSFUL'],
      ['vk_due', 'NOT_COMPLETED'],
      ['vk_renewed', 'NOT_COMPLETED'],
    ]);
    expect(await history(s, 'vk_due')).toEqual([
      [null, 'PENDING'],
      ['PENDING', 'NOT_COMPLETED'],
    ]);
  });

  it('closes, without a transition, a checkout whose session the processor already ended', async () => {
    const s = await setup();
    await s.service.initIframe(SHOP, request('vk_1'), T0);
    await s.paymentSessions.report('vk_1', {
      merchantId: SHOP,
      status: 'FAILED',
      errorMessage: 'Declined',
    } as PaymentReportDto);
    expect(await s.service.expireDue(T0 + TTL_MS)).toBe(1);
    expect(s.sessions.stored('vk_1')?.status).toBe('FAILED');
    expect(s.checkouts.stored('vk_1')?.state).toBe('ended');
    expect(await history(s, 'vk_1')).toHaveLength(2);
  });

  it(`takes at most ${CHECKOUT_BATCH} checkouts per transaction, oldest first`, async () => {
    const s = await setup();
    for (let i = 0; i <= CHECKOUT_BATCH; i++) {
      await s.service.initIframe(SHOP, request(`vk_${i}`), T0 + i);
    }
    const committed = s.transactions.committed;
    expect(await s.service.expireDue(T0 + CHECKOUT_BATCH + TTL_MS)).toBe(CHECKOUT_BATCH);
    expect(s.transactions.committed).toBe(committed + 1);
    expect(s.sessions.stored(`vk_${CHECKOUT_BATCH}`)?.status).toBe('PENDING');
    expect(s.sessions.stored(`vk_${CHECKOUT_BATCH - 1}`)?.status).toBe('NOT_COMPLETED');
    expect(await s.service.expireDue(T0 + CHECKOUT_BATCH + TTL_MS)).toBe(1);
  });

  it('erases the customer and address of a stale checkout, keeping what the page shows', async () => {
    const s = await setup();
    await s.service.initIframe(SHOP, request('vk_1'), T0);
    expect(await s.service.eraseStale(T0 + TTL_MS - 1, T0)).toBe(0);
    expect(await s.service.eraseStale(T0 + TTL_MS, T0)).toBe(1);
    expect(s.checkouts.stored('vk_1')).toMatchObject({
      personalDataErasedAt: T0,
      request: { client: null, address: null, description: 'order-9001' },
    });
    expect(await s.service.eraseStale(T0 + TTL_MS, T0)).toBe(0);
  });
});
