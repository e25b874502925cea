import {
  act,
  checkoutSeed,
  initIframeBody,
  makePayable,
  openPage,
  SHOP_KEY,
  tokenFor,
} from './support/checkout.js';
import { receiveAddress } from '../src/deposits/deposit-address.js';
import { storedAccountKey } from '../src/deposits/extended-keys.js';
import { decodeQrCode, freshAccount, PUBLISHED } from './support/deposits.js';
import {
  adminHeaders,
  createOperator,
  expectEnvelope,
  http,
  startTestApp,
  TestApp,
} from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** 10.00 EUR at 0.92 EUR per USDT. */
const DUE = '10869566';

let txids = 0;
const txid = () => (++txids).toString(16).padStart(64, '0');

/** The watcher's report of a USDT transfer to `address` on TRON. */
function transfer(address: string, amount: string, confirmations: number, extra = {}) {
  return {
    network: 'tron',
    address,
    txid: txid(),
    index: 0,
    asset: USDT_TRON,
    amount,
    confirmations,
    ...extra,
  };
}

/** Deposits a watcher reports, and the sessions they settle, through the real app (e2e). */
describe('deposits (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let watcher: Record<string, string>;
  let addresses = 0;

  const lookup = (key: string) =>
    http(`${t.url}/api/gateway/payment-status/${key}`, { headers: { key: SHOP_KEY } });
  const report = (body: unknown, headers = watcher) =>
    http(`${t.url}/admin/deposits`, { method: 'POST', headers, body });
  const state = (token: string) => http(`${t.url}/checkout/${token}/status`);

  /** A checkout paying USDT on TRON: its token and deposit address (the key's next one). */
  async function paying(validationKey: string, app = t) {
    const token = await tokenFor(app.url, initIframeBody(validationKey, receiver.url));
    const { nonce } = await openPage(app.url, token);
    const chosen = await act(app.url, token, 'pair', {
      nonce,
      currencyCode: 'USDT',
      protocol: 'TRC20',
    });
    expect(chosen.status).toBe(200);
    const payment = (await http(`${app.url}/checkout/${token}/status`)).body.payload[0].payment;
    return { token, address: payment.address as string };
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ AUTH_MODE: 'api-key', CALLBACK_RETRY_SCHEDULE: '1' });
    await t.seed(checkoutSeed());
    await makePayable(t.url);
    const operator = await createOperator(t, 'watcher-tron', 'payments');
    watcher = { authorization: `Bearer ${operator.token}` };
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('settles a payment as its deposit confirms: seen (n of N), then SUCCESSFUL with its callback', async () => {
    const { token, address } = await paying('vk_dep_paid');
    expect(address).toBe(PUBLISHED.tron.addresses[addresses++]);
    expect((await state(token)).body.payload[0].payment).toMatchObject({
      amount: '10.869566',
      amountAtomic: DUE,
      confirmationsRequired: 20,
      progress: { state: 'waiting', remaining: { amount: '10.869566' } },
    });
    const seen = transfer(address, DUE, 1);
    const first = await report(seen);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      payload: [
        {
          network: 'tron',
          address,
          txid: seen.txid,
          index: 0,
          asset: USDT_TRON,
          amount: DUE,
          confirmations: 1,
          counted: false,
          session: { status: 'PENDING' },
        },
      ],
    });
    expect((await state(token)).body.payload[0].payment.progress).toMatchObject({
      state: 'seen',
      confirmations: 1,
    });
    const confirmed = await report({ ...seen, confirmations: 20 });
    expect(confirmed.body.payload[0]).toMatchObject({
      counted: true,
      session: { status: 'SUCCESSFUL' },
    });
    const status = await lookup('vk_dep_paid');
    expect(status.body.payload[0]).toMatchObject({
      status: 'SUCCESSFUL',
      paymentResponse: {
        paymentMethod: 'USDT/TRC20',
        money: { amount: 10, currency: 'EUR' },
        sourceMoney: { amount: 10, currency: 'EUR', presentationAmount: 'EUR10.00' },
        traceId: 'order-9001',
        validationKey: 'vk_dep_paid',
      },
    });
    await receiver.waitFor(() =>
      receiver.to('/return').some((d) => d.body.includes('vk_dep_paid')),
    );
    // A repeat changes nothing: no second callback.
    expect((await report({ ...seen, confirmations: 21 })).body.payload[0].session.status).toBe(
      'SUCCESSFUL',
    );
    const page = await openPage(t.url, token);
    expect(page.page.text).toContain('data-detailed-status="UNAVAILABLE"');
    expect((await http(`${t.url}/checkout/${token}/status`)).body.payload[0]).toMatchObject({
      stage: 'ended',
      outcome: 'success',
    });
    const callbacks = await http(`${t.url}/admin/payment-sessions/vk_dep_paid/callbacks`, {
      headers: adminHeaders,
    });
    expect(callbacks.body.payload).toHaveLength(1);
  });

  it('shows the amount, the address and a QR code of the payment URI on the page', async () => {
    const { token, address } = await paying('vk_dep_page');
    addresses++;
    const { page } = await openPage(t.url, token);
    expect(page.text).toContain(
      'Send exactly <strong class="crypto-amount">10.869566 USDT</strong> on TRON to this address:',
    );
    expect(page.text).toContain(`<code class="value address" id="pay-address">${address}</code>`);
    expect(page.text).toContain(`<img class="qr-code" src="/checkout/${token}/qr.svg"`);
    // Without script: the amount, the address, the QR code, the warning, and a way to reload.
    expect(page.text).toContain(
      'Send only USDT on TRON. Another asset, or USDT on another network, is lost.',
    );
    expect(page.text).toContain('Waiting for your transfer. This page updates by itself.');
    expect(page.text).toContain(`<a href="/checkout/${token}">Reload this page</a>`);
    expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const qr = await http(`${t.url}/checkout/${token}/qr.svg`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(qr.headers.get('cache-control')).toBe('no-store');
    expect(qr.headers.get('content-security-policy')).toBe("default-src 'none'");
    // TRON's wallets read the address alone.
    expect(decodeQrCode(qr.text)).toBe(address);
    const unknown = await http(`${t.url}/checkout/ct_${'u'.repeat(43)}/qr.svg`);
    expectEnvelope(unknown, 404, 'NOT_FOUND');
    const unchosen = await tokenFor(t.url, initIframeBody('vk_dep_unchosen', receiver.url));
    expectEnvelope(await http(`${t.url}/checkout/${unchosen}/qr.svg`), 404, 'NOT_FOUND');
  });

  it('settles an overpayment and flags it; counts a reorganised deposit again only once re-confirmed', async () => {
    const { address } = await paying('vk_dep_over');
    addresses++;
    const part = transfer(address, '9000000', 20);
    await report(part);
    expect((await report({ ...part, confirmations: 0 })).body.payload[0].counted).toBe(false);
    const rest = await report(transfer(address, '3000000', 20));
    expect(rest.body.payload[0]).toMatchObject({ counted: true, session: { status: 'PENDING' } });
    const back = await report({ ...part, confirmations: 20 });
    expect(back.body.payload[0]).toMatchObject({
      counted: true,
      flag: 'OVERPAID',
      session: { status: 'SUCCESSFUL' },
    });
  });

  it('stores another asset, another chain or a late transfer, flagged, without changing the session', async () => {
    const { address } = await paying('vk_dep_flags');
    addresses++;
    const coin = await report(transfer(address, '5000000000', 30, { asset: 'native' }));
    expect(coin.body.payload[0]).toMatchObject({
      counted: false,
      flag: 'OTHER_ASSET',
      session: { status: 'PENDING' },
    });
    expect((await lookup('vk_dep_flags')).body.payload[0].status).toBe('PENDING');
    await report(transfer(address, DUE, 20));
    const late = await report(transfer(address, '1', 30));
    expect(late.body.payload[0]).toMatchObject({
      counted: false,
      flag: 'LATE',
      session: { status: 'SUCCESSFUL' },
    });
  });

  it.each([
    [{ txid: 'x' }, 'txid'],
    [{ txid: `0x${'a'.repeat(64)}` }, 'txid'],
    [{ amount: '0' }, 'amount'],
    [{ amount: 5 }, 'amount'],
    [{ amount: '1.5' }, 'amount'],
    [{ confirmations: -1 }, 'confirmations'],
    [{ index: 1.5 }, 'index'],
    [{ chainId: 1 }, 'chainId'],
    [{ asset: '0xdAC17F958D2ee523a2206206994597C13D831ec7' }, 'asset'],
    [{ network: 'solana' }, 'network'],
  ])('refuses a report with %j (400 on %s)', async (change, field) => {
    const r = await report({ ...transfer(PUBLISHED.tron.addresses[0], '1', 1), ...change });
    const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(error.field).toBe(field);
  });

  it('answers 404 for an address it never gave, 400 for another transfer under a reported (txid, index)', async () => {
    const elsewhere = receiveAddress(storedAccountKey('tron', freshAccount('tron').publicKey), 0);
    expectEnvelope(await report(transfer(elsewhere, '1', 1)), 404, 'NOT_FOUND');
    const once = transfer(PUBLISHED.tron.addresses[0], '7', 1);
    expect((await report(once)).status).toBe(200);
    const [error] = expectEnvelope(
      await report({ ...once, amount: '8' }),
      400,
      'INVALID_PARAMETER',
    );
    expect(error.field).toBe('txid');
  });

  it('takes reports from role payments only, and audits them', async () => {
    const viewer = await createOperator(t, 'deposit-viewer', 'viewer');
    const refused = await report(transfer(PUBLISHED.tron.addresses[0], '1', 1), {
      authorization: `Bearer ${viewer.token}`,
    });
    expectEnvelope(refused, 403, 'FORBIDDEN');
    const events = await http(`${t.url}/admin/audit-events?action=reportDeposit&size=100`, {
      headers: adminHeaders,
    });
    const byName = (name: string) =>
      events.body.payload.filter((e: { operator: { name: string } }) => e.operator.name === name);
    expect(byName('watcher-tron').length).toBeGreaterThan(5);
    expect(byName('deposit-viewer')).toEqual([expect.objectContaining({ outcome: 403 })]);
    const settled = await http(
      `${t.url}/admin/audit-events?action=reportDeposit&target=vk_dep_paid`,
      {
        headers: adminHeaders,
      },
    );
    expect(settled.body.payload.map((e: { changes: object }) => e.changes)).toEqual([
      { status: { old: 'PENDING', new: 'SUCCESSFUL' } },
    ]);
  });
});

/** What the expiry does with the deposits of a checkout past its time (e2e). */
describe('deposits at expiry (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  const report = (body: unknown) =>
    http(`${t.url}/admin/deposits`, { method: 'POST', headers: adminHeaders, body });
  const lookup = (key: string) =>
    http(`${t.url}/api/gateway/payment-status/${key}`, { headers: { key: SHOP_KEY } });
  async function settledLookup(key: string) {
    const deadline = Date.now() + 20_000;
    let answer = await lookup(key);
    while (answer.body.payload[0].status === 'PENDING' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await lookup(key);
    }
    return answer;
  }
  async function paying(validationKey: string) {
    const token = await tokenFor(t.url, initIframeBody(validationKey, receiver.url));
    const { nonce } = await openPage(t.url, token);
    await act(t.url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' });
    const status = await http(`${t.url}/checkout/${token}/status`);
    return { token, address: status.body.payload[0].payment.address as string };
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      AUTH_MODE: 'api-key',
      CHECKOUT_TOKEN_TTL_SECONDS: '3',
      CHECKOUT_EXPIRY_SWEEP_SECONDS: '1',
    });
    await t.seed(checkoutSeed());
    await makePayable(t.url);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('fails an underpaid session at expiry (FAILED UNDERPAID, its callback) and flags its deposit', async () => {
    const { address } = await paying('vk_exp_under');
    await report(transfer(address, '5000000', 20));
    const ended = await settledLookup('vk_exp_under');
    expect(ended.body.payload[0]).toEqual({
      status: 'FAILED',
      detailedStatus: 'UNDERPAID',
      errorMessage:
        'Underpaid: 5 of 10.869566 USDT received by the time the payment expired; it is to be refunded.',
    });
    await receiver.waitFor(() =>
      receiver.to('/error').some((d) => d.body.includes('vk_exp_under')),
    );
    const late = await report(transfer(address, DUE, 20));
    expect(late.body.payload[0]).toMatchObject({ flag: 'LATE', session: { status: 'FAILED' } });
  });

  it('holds a session open while its deposit confirms, and settles it once confirmed', async () => {
    const { token, address } = await paying('vk_exp_hold');
    const seen = transfer(address, DUE, 2);
    await report(seen);
    // Past the token's time and a few sweeps: still open, the page still shows the progress.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect((await lookup('vk_exp_hold')).body.payload[0].status).toBe('PENDING');
    const page = await http(`${t.url}/checkout/${token}/status`);
    expect(page.body.payload[0]).toMatchObject({
      stage: 'chosen',
      payment: { progress: { state: 'seen', confirmations: 2 } },
    });
    const paid = await report({ ...seen, confirmations: 20 });
    expect(paid.body.payload[0].session.status).toBe('SUCCESSFUL');
  });

  it('expires a session that received nothing that counts: NOT_COMPLETED, EXPIRED', async () => {
    const { address } = await paying('vk_exp_none');
    await report(transfer(address, DUE, 20, { asset: 'native' }));
    const ended = await settledLookup('vk_exp_none');
    expect(ended.body.payload[0]).toEqual({ status: 'NOT_COMPLETED', detailedStatus: 'EXPIRED' });
  });
});
