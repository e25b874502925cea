import { loadConfig } from '../config/app-config.js';
import type { PaymentReportDto } from '../payment-status/dto/payment-report.dto.js';
import { InMemoryAuditEvents } from '../../test/fakes/in-memory-audit.js';
import { InMemoryCallbackOutbox } from '../../test/fakes/in-memory-callback-outbox.js';
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
import { CONFIRMATION_HOLD_MS } from './deposit-rules.js';
import type { DepositReport } from './deposits.service.js';
import { SANDBOX_DEPOSIT_KEYS } from './sandbox-keys.js';
import { testAuditTrail, testPaymentSessionService } from '../../test/fakes/no-op-ports.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
/** The standard test phrase's first EVM address: index 0 of the shop's key. */
const ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SETTLEMENT = {
  network: 'evm',
  chainId: 1,
  tokenContract: USDT,
  decimals: 6,
  confirmations: 12,
} as const;
const call = {
  operator: { kind: 'operator', id: 'op-1', name: 'watcher-eth' },
  action: 'reportDeposit',
  requestId: 'req-1',
  status: 200,
} as const;

/** The deposit service over in-memory stores, with a shop whose checkout quotes 10.869566 USDT. */
async function setup() {
  const config = loadConfig({});
  const merchantStore = new InMemoryMerchants();
  const sessions = new InMemoryPaymentSessions();
  const outbox = new InMemoryCallbackOutbox();
  const events = new InMemoryAuditEvents();
  const stores = {
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
    stores.keys,
    stores.rates,
    stores.deposits,
  );
  const audit = testAuditTrail(events, transactions);
  const { merchants } = merchantServices(merchantStore, transactions, undefined, undefined, audit);
  const paymentSessions = testPaymentSessionService(
    sessions,
    merchants,
    transactions,
    outbox,
    audit,
  );
  const services = depositServices(config, stores, transactions, audit, paymentSessions);
  // What the checkout answers for a paid session: its references and the money asked for.
  services.paidReports.register(
    async (_tx, validationKey, payment) =>
      ({
        merchantId: 'shop',
        status: 'SUCCESSFUL',
        paymentResponse: {
          money: { amount: '10.00', currency: 'EUR' },
          sourceMoney: {
            amount: (payment.sourceMoney.amountMinor / 100).toFixed(2),
            currency: 'EUR',
          },
          destinationMoney: { amount: '10.00', currency: 'EUR' },
          totalFees: { amount: '0.00', currency: 'EUR' },
          traceId: `trace-${validationKey}`,
          transactionReference: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
          paymentMethod: payment.pair,
        },
      }) as PaymentReportDto,
  );
  await merchants.createMerchant({ id: 'shop', name: 'Shop' });
  await services.keys.put('shop', 'evm', SANDBOX_DEPOSIT_KEYS.evm);
  await services.rates.put('USDT', 'EUR', '0.92', undefined, T0);
  return {
    ...services,
    merchants,
    paymentSessions,
    sessions,
    outbox,
    events,
    stores,
    transactions,
  };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** A PENDING session whose customer chose USDT on Ethereum at T0: 10.869566 USDT due. */
async function open(s: Setup, validationKey = 'vk_1') {
  await s.transactions.run(async (tx) => {
    await s.paymentSessions.transition(
      tx,
      {
        validationKey,
        report: {
          merchantId: 'shop',
          status: 'PENDING',
          returnUrl: 'https://shop.example/return',
        } as PaymentReportDto,
      },
      { callbacks: true },
    );
    await s.payments.choose(
      tx,
      {
        validationKey,
        merchantId: 'shop',
        money: { amountMinor: 1000, currency: 'EUR' },
        currencyCode: 'USDT',
        protocol: 'ERC20',
        settlement: SETTLEMENT,
      },
      T0,
    );
  });
}

let txids = 0;
function transfer(
  amount: string,
  confirmations: number,
  extra: Partial<DepositReport> = {},
): DepositReport {
  return {
    network: 'evm',
    address: ADDRESS.toLowerCase(),
    txid: `0x${(++txids).toString(16).padStart(64, '0')}`,
    index: 3,
    asset: USDT,
    amount,
    confirmations,
    ...extra,
  };
}

describe('DepositService: reports and the sessions they settle', () => {
  it('settles the session once the quoted amount is confirmed: SUCCESSFUL, its callback, sourceMoney in fiat', async () => {
    const s = await setup();
    await open(s);
    const seen = transfer('10869566', 1);
    expect(await s.deposits.report(seen, { call }, T0 + 1000)).toMatchObject({
      address: ADDRESS,
      counted: false,
      session: { status: 'PENDING' },
    });
    expect(s.outbox.callbacks).toHaveLength(0);
    const paid = await s.deposits.report({ ...seen, confirmations: 12 }, { call }, T0 + 2000);
    expect(paid).toEqual({
      network: 'evm',
      address: ADDRESS,
      txid: seen.txid,
      index: 3,
      asset: USDT,
      amount: '10869566',
      confirmations: 12,
      counted: true,
      session: { status: 'SUCCESSFUL' },
    });
    const session = s.sessions.stored('vk_1')!;
    expect(session.status).toBe('SUCCESSFUL');
    expect(JSON.parse(session.paymentResponse!)).toMatchObject({
      paymentMethod: 'USDT/ERC20',
      // 10.869566 USDT at 0.92: 10.00000072 EUR, rounded down.
      sourceMoney: { amountMinor: 1000, currency: 'EUR' },
    });
    expect(s.outbox.callbacks.map((c) => c.status)).toEqual(['SUCCESSFUL']);
  });

  it('takes a repeat as a repeat: no second transition, no second callback', async () => {
    const s = await setup();
    await open(s);
    const full = transfer('10869566', 12);
    await s.deposits.report(full, { call }, T0 + 1000);
    const again = await s.deposits.report(full, { call }, T0 + 2000);
    expect(again).toMatchObject({ counted: true, session: { status: 'SUCCESSFUL' } });
    expect(s.outbox.callbacks).toHaveLength(1);
    expect(s.stores.deposits.deposits()).toHaveLength(1);
  });

  it('stops counting a deposit that left the chain, and counts it again once confirmed anew', async () => {
    const s = await setup();
    await open(s);
    const half = transfer('5000000', 12);
    await s.deposits.report(half, { call }, T0 + 1000);
    const rest = transfer('5869566', 5);
    await s.deposits.report(rest, { call }, T0 + 1000);
    const reorged = await s.deposits.report({ ...half, confirmations: 0 }, { call }, T0 + 2000);
    expect(reorged).toMatchObject({
      counted: false,
      confirmations: 0,
      session: { status: 'PENDING' },
    });
    await s.deposits.report({ ...rest, confirmations: 12 }, { call }, T0 + 3000);
    expect(s.sessions.stored('vk_1')!.status).toBe('PENDING');
    const back = await s.deposits.report({ ...half, confirmations: 12 }, { call }, T0 + 4000);
    expect(back.session.status).toBe('SUCCESSFUL');
  });

  it('settles an overpayment and flags its excess', async () => {
    const s = await setup();
    await open(s);
    const answer = await s.deposits.report(transfer('12000000', 12), { call }, T0 + 1000);
    expect(answer).toMatchObject({
      counted: true,
      flag: 'OVERPAID',
      session: { status: 'SUCCESSFUL' },
    });
    expect(s.stores.deposits.deposits()[0]).toMatchObject({ flaggedAmount: '1130434' });
  });

  it('stores and flags another asset or chain, never counting it', async () => {
    const s = await setup();
    await open(s);
    const coin = await s.deposits.report(
      transfer('99000000000000000000', 50, { index: 0, asset: 'native' }),
      { call },
      T0,
    );
    expect(coin).toMatchObject({
      counted: false,
      flag: 'OTHER_ASSET',
      session: { status: 'PENDING' },
    });
    const polygon = await s.deposits.report(
      transfer('10869566', 50, { chainId: 137 }),
      { call },
      T0,
    );
    expect(polygon).toMatchObject({ counted: false, flag: 'OTHER_CHAIN' });
    expect(s.sessions.stored('vk_1')!.status).toBe('PENDING');
  });

  it('flags a transfer to a paid session: late when new, extra (overpaid) when it confirms after the payment', async () => {
    const s = await setup();
    await open(s);
    const pending = transfer('1000000', 3);
    await s.deposits.report(pending, { call }, T0 + 1000);
    await s.deposits.report(transfer('10869566', 12), { call }, T0 + 2000);
    expect(s.sessions.stored('vk_1')!.status).toBe('SUCCESSFUL');
    const late = await s.deposits.report(transfer('5', 1), { call }, T0 + 3000);
    expect(late).toMatchObject({ counted: false, flag: 'LATE', session: { status: 'SUCCESSFUL' } });
    const extra = await s.deposits.report({ ...pending, confirmations: 12 }, { call }, T0 + 4000);
    expect(extra).toMatchObject({
      counted: false,
      flag: 'OVERPAID',
      session: { status: 'SUCCESSFUL' },
    });
    expect(s.outbox.callbacks).toHaveLength(1);
  });

  it('refuses an address it never gave (404), and another transfer under a stored (txid, index) (400)', async () => {
    const s = await setup();
    await open(s);
    const unknown = await apiErrorOf(
      s.deposits.report(
        transfer('1', 1, { address: '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0' }),
        { call },
        T0,
      ),
    );
    expect(unknown).toMatchObject({ status: 404 });
    const first = transfer('1000', 1);
    await s.deposits.report(first, { call }, T0);
    const changed = await apiErrorOf(s.deposits.report({ ...first, amount: '2000' }, { call }, T0));
    expect(changed).toMatchObject({ status: 400 });
    expect(changed.items[0].field).toBe('txid');
  });

  it('holds the quote in force when the first deposit is seen, whatever its time', async () => {
    const s = await setup();
    await open(s);
    await s.rates.put('USDT', 'EUR', '1.15', undefined, T0 + 1000);
    // Seen before the quote's time ran out: the quote at 0.92 stands for good.
    await s.deposits.report(transfer('1000', 0), { call }, T0 + 60_000);
    const later = T0 + 20 * 60_000;
    await s.rates.put('USDT', 'EUR', '1.15', undefined, later);
    const shown = await s.transactions.run((tx) =>
      s.payments.instructions(tx, 'vk_1', 'PENDING', later),
    );
    expect(shown).toMatchObject({ amount: '10.869566', price: '0.92', quoteLocked: true });
  });

  it('renews an unseen quote past its time at the rate in force, for the same address', async () => {
    const s = await setup();
    await open(s);
    const later = T0 + 16 * 60_000;
    await s.rates.put('USDT', 'EUR', '1', undefined, later);
    const shown = await s.transactions.run((tx) =>
      s.payments.instructions(tx, 'vk_1', 'PENDING', later),
    );
    expect(shown).toMatchObject({ address: ADDRESS, amount: '10', price: '1', quoteLocked: false });
    expect(Date.parse(shown!.quoteExpiresAt)).toBe(later + 900_000);
  });

  it('audits each report that changes something, and the session it settled, in its transaction', async () => {
    const s = await setup();
    await open(s);
    const full = transfer('10869566', 12);
    await s.deposits.report(full, { call }, T0);
    await s.deposits.report(full, { call }, T0);
    const events = s.events.all().filter((e) => e.action === 'reportDeposit');
    expect(events.map((e) => e.target)).toEqual([`evm:${full.txid}:3`, 'vk_1']);
    expect(events[1].changes).toEqual({ status: { old: 'PENDING', new: 'SUCCESSFUL' } });
    expect(events[0].operatorName).toBe('watcher-eth');
  });
});

describe('DepositService: what the expiry does', () => {
  it('holds a session whose deposit is confirming, fails an underpaid one, expires the rest', async () => {
    const s = await setup();
    await open(s, 'vk_hold');
    await open(s, 'vk_under');
    await open(s, 'vk_none');
    await s.deposits.report(
      transfer('10869566', 2, { address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' }),
      { call },
      T0,
    );
    const under = '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0';
    await s.deposits.report(transfer('5000000', 12, { address: under }), { call }, T0);
    const at = T0 + 30 * 60_000;
    const decisions = await s.transactions.run((tx) =>
      s.deposits.atExpiry(tx, ['vk_hold', 'vk_under', 'vk_none'], at),
    );
    expect(Object.fromEntries(decisions)).toEqual({
      vk_hold: { kind: 'hold' },
      vk_under: {
        kind: 'underpaid',
        errorMessage:
          'Underpaid: 5 of 10.869566 USDT received by the time the payment expired; it is to be refunded.',
      },
      vk_none: { kind: 'expire' },
    });
    // Past the hold's limit the confirming deposit holds nothing.
    const past = await s.transactions.run((tx) =>
      s.deposits.atExpiry(tx, ['vk_hold'], T0 + CONFIRMATION_HOLD_MS),
    );
    expect(past.get('vk_hold')).toEqual({ kind: 'expire' });
    await s.transactions.run((tx) => s.deposits.flagUnderpaid(tx, ['vk_under'], at));
    expect(s.stores.deposits.deposits().find((d) => d.validationKey === 'vk_under')).toMatchObject({
      flag: 'UNDERPAID',
      flaggedAmount: '5000000',
      counted: true,
    });
  });
});
