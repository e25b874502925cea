import { readFileSync } from 'node:fs';
import { publishedDemoMerchant } from '../src/sandbox/demo-merchant.js';
import {
  act,
  checkoutSeed,
  initIframe,
  initIframeBody,
  makePayable,
  openPage,
  tokenFor,
} from './support/checkout.js';
import { PUBLISHED } from './support/deposits.js';
import { adminHeaders, expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const DEMO = JSON.parse(readFileSync('seeds/demo.json', 'utf8'));

/** The sandbox's deposit buttons: through the deposit path a watcher's report takes (e2e). */
describe('sandbox deposits (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const demoKey = publishedDemoMerchant().apiKey;

  const lookup = (key: string) =>
    http(`${t.url}/api/gateway/payment-status/${key}`, { headers: { key: demoKey } });
  async function until(key: string, done: (status: string) => boolean, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    let answer = await lookup(key);
    while (!done(answer.body.payload[0].status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = await lookup(key);
    }
    return answer.body.payload[0];
  }

  /** A demo checkout paying BTC (3 confirmations): its token and the page's nonce. */
  async function paying(validationKey: string) {
    const answer = await initIframe(t.url, initIframeBody(validationKey, receiver.url), demoKey);
    expect(answer.status).toBe(200);
    const token = answer.body.payload[0].initializationToken as string;
    const first = await openPage(t.url, token);
    const chosen = await act(t.url, token, 'pair', {
      nonce: first.nonce,
      currencyCode: 'BTC',
      protocol: 'BITCOIN',
    });
    expect(chosen.status).toBe(200);
    return { token, nonce: (await openPage(t.url, token)).nonce };
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      AUTH_MODE: 'api-key',
      CHECKOUT_SANDBOX: 'true',
      CHECKOUT_TOKEN_TTL_SECONDS: '8',
      CHECKOUT_EXPIRY_SWEEP_SECONDS: '1',
    });
    await t.seed(DEMO);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it("pays in full from the demo merchant's published key at the demo price, confirming each second", async () => {
    const { token, nonce } = await paying('vk_sbx_full');
    const sent = await act(t.url, token, 'deposit', { nonce, amount: 'full' });
    expect(sent.status).toBe(200);
    expect(sent.body.payload[0]).toMatchObject({
      status: 'PENDING',
      stage: 'chosen',
      payment: {
        address: PUBLISHED.bitcoin.addresses[0],
        // 10.00 EUR at the demo price of 90,000 EUR: 0.00011112 BTC, rounded up.
        amount: '0.00011112',
        confirmationsRequired: 3,
        progress: { state: 'seen', confirmations: 0 },
      },
    });
    expect(await until('vk_sbx_full', (s) => s === 'SUCCESSFUL')).toMatchObject({
      status: 'SUCCESSFUL',
      paymentResponse: { paymentMethod: 'BTC/BITCOIN', sourceMoney: { currency: 'EUR' } },
    });
    const deposits = await http(`${t.url}/admin/deposits?validationKey=vk_sbx_full`, {
      headers: adminHeaders,
    });
    expect(deposits.body.payload).toEqual([
      expect.objectContaining({ amount: '11112', confirmations: 3, counted: true }),
    ]);
    // The reports are audited as the system's.
    const events = await http(`${t.url}/admin/audit-events?action=reportSandboxDeposit&size=100`, {
      headers: adminHeaders,
    });
    expect(events.body.payload.length).toBeGreaterThan(1);
  });

  it('overpays: SUCCESSFUL, the excess flagged', async () => {
    const { token, nonce } = await paying('vk_sbx_over');
    expect((await act(t.url, token, 'deposit', { nonce, amount: 'over' })).status).toBe(200);
    expect((await until('vk_sbx_over', (s) => s === 'SUCCESSFUL')).status).toBe('SUCCESSFUL');
    const flagged = await http(`${t.url}/admin/deposits?flagged=true&validationKey=vk_sbx_over`, {
      headers: adminHeaders,
    });
    expect(flagged.body.payload).toEqual([
      expect.objectContaining({ flag: 'OVERPAID', flaggedAmount: '1111' }),
    ]);
  });

  it('underpays: the page shows what arrived and what is left; at expiry FAILED UNDERPAID', async () => {
    const { token, nonce } = await paying('vk_sbx_under');
    expect((await act(t.url, token, 'deposit', { nonce, amount: 'under' })).status).toBe(200);
    // Once its three confirmations are in, and before the token's time ends.
    const deadline = Date.now() + 6000;
    let progress = (await http(`${t.url}/checkout/${token}/status`)).body.payload[0].payment
      ?.progress;
    while (progress?.state !== 'underpaid' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      progress = (await http(`${t.url}/checkout/${token}/status`)).body.payload[0].payment
        ?.progress;
    }
    expect(progress).toEqual({
      state: 'underpaid',
      received: { amount: '0.00005556', amountAtomic: '5556' },
      remaining: { amount: '0.00005556', amountAtomic: '5556' },
    });
    expect(await until('vk_sbx_under', (s) => s !== 'PENDING')).toMatchObject({
      status: 'FAILED',
      detailedStatus: 'UNDERPAID',
    });
  });

  it('needs the page’s nonce and a pair paid on chain', async () => {
    const { token, nonce } = await paying('vk_sbx_refused');
    expectEnvelope(
      await act(t.url, token, 'deposit', { nonce: 'A'.repeat(32), amount: 'full' }),
      403,
      'FORBIDDEN',
    );
    expectEnvelope(
      await act(t.url, token, 'deposit', { nonce, amount: 'all' }),
      400,
      'INVALID_PARAMETER',
    );
    // Solana is in the catalog without a settlement: chosen, but not paid on chain.
    const other = await initIframe(t.url, initIframeBody('vk_sbx_solana', receiver.url), demoKey);
    const otherToken = other.body.payload[0].initializationToken as string;
    const page = await openPage(t.url, otherToken);
    await act(t.url, otherToken, 'pair', {
      nonce: page.nonce,
      currencyCode: 'USDT',
      protocol: 'SOLANA',
    });
    const again = await openPage(t.url, otherToken);
    expectEnvelope(
      await act(t.url, otherToken, 'deposit', { nonce: again.nonce, amount: 'full' }),
      409,
      'CONFLICT',
    );
  });
});

describe('sandbox deposits outside the sandbox (e2e)', () => {
  it('are refused: a watcher reports deposits in production', async () => {
    const t = await startTestApp({ AUTH_MODE: 'api-key' });
    try {
      await t.seed(checkoutSeed());
      await makePayable(t.url);
      const token = await tokenFor(t.url, initIframeBody('vk_prod_deposit', 'http://127.0.0.1:9'));
      const { nonce } = await openPage(t.url, token);
      await act(t.url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' });
      const again = await openPage(t.url, token);
      expectEnvelope(
        await act(t.url, token, 'deposit', { nonce: again.nonce, amount: 'full' }),
        403,
        'FORBIDDEN',
      );
    } finally {
      await t.close();
    }
  });
});
