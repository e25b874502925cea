import { jest } from '@jest/globals';
import pg from 'pg';
import { act, initIframe, initIframeBody, openPage } from './support/checkout.js';
import { MainProcess, startMain } from './support/main-process.js';
import { PostgresServer, startPostgres } from './support/servers.js';
import {
  ADMIN_TOKEN,
  adminHeaders as admin,
  http,
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
} from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

// Two processes on a PostgreSQL of their own: more than the default time per step.
jest.setTimeout(120_000);

let postgres: PostgresServer;
let a: MainProcess;
let b: MainProcess;
let receiver: WebhookReceiver;
let shopKey: string;
let shopSecret: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function query<T>(sql: string, parameters: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows as T[];
  } finally {
    await client.end();
  }
}

/** init-iframe through `instance` with the shop's key: the token. */
async function start(instance: MainProcess, validationKey: string): Promise<string> {
  const answer = await initIframe(
    instance.url,
    initIframeBody(validationKey, receiver.url),
    shopKey,
  );
  expect(answer.status).toBe(200);
  return answer.body.payload[0].initializationToken as string;
}

/** A checkout started on `a` whose pair was chosen on `b`: the nonce of a page read on `b`. */
async function chosenOn(validationKey: string): Promise<{ token: string; nonce: string }> {
  const token = await start(a, validationKey);
  const { nonce } = await openPage(b.url, token);
  const chosen = await act(b.url, token, 'pair', {
    nonce,
    currencyCode: 'USDT',
    protocol: 'TRC20',
  });
  expect(chosen.status).toBe(200);
  return { token, nonce: (await openPage(b.url, token)).nonce };
}

const lookup = (instance: MainProcess, key: string) =>
  http(`${instance.url}/api/gateway/payment-status/${key}`, { headers: { key: shopKey } });

/** The callbacks the receiver got for a session. */
const deliveriesOf = (key: string) =>
  receiver.deliveries.filter((d) => JSON.parse(d.body).validationKey === key);

/**
 * The checkout on two instances sharing one PostgreSQL: a write acknowledged by one is seen by
 * every read that starts after it, and a repeated init-iframe request answers the same session
 * whichever instance it reaches.
 */
describe('checkout on two instances (e2e)', () => {
  beforeAll(async () => {
    [postgres, receiver] = await Promise.all([startPostgres(), WebhookReceiver.start()]);
    const env = {
      DATABASE_URL: postgres.url,
      ADMIN_TOKEN,
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      // The sandbox's outcome action, so that pages can end payments on either instance.
      CHECKOUT_SANDBOX: 'true',
      CHECKOUT_EXPIRY_SWEEP_SECONDS: '1',
      LOG_LEVEL: 'warn',
    };
    [a, b] = await Promise.all([startMain(env), startMain(env)]);
    const merchant = await http(`${a.url}/admin/merchants`, {
      method: 'POST',
      headers: admin,
      body: { id: 'shop', name: 'Shop' },
    });
    expect(merchant.status).toBe(201);
    shopSecret = merchant.body.callbackSecret;
    const key = await http(`${b.url}/admin/merchants/shop/api-keys`, {
      method: 'POST',
      headers: admin,
    });
    shopKey = key.body.apiKey;
    const pair = await http(`${a.url}/admin/crypto-pairs`, {
      method: 'POST',
      headers: admin,
      body: { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
    });
    expect(pair.status).toBe(201);
  });

  afterAll(async () => {
    for (const instance of [a, b]) instance?.child.kill('SIGKILL');
    await receiver?.close();
    await postgres?.destroy();
  });

  it('starts a payment on one instance and ends it through the page on the other', async () => {
    // The page on b reads what a acknowledged, at once.
    const { token, nonce } = await chosenOn('vk_mi_paid');
    const paid = await act(b.url, token, 'outcome', { nonce, outcome: 'paid' });
    expect(paid.body).toEqual({
      payload: [{ status: 'SUCCESSFUL', stage: 'ended', outcome: 'success' }],
    });
    const status = await lookup(a, 'vk_mi_paid');
    expect(status.body.payload[0]).toMatchObject({
      status: 'SUCCESSFUL',
      paymentResponse: { traceId: 'order-9001', paymentMethod: 'USDT/TRC20' },
    });
    await receiver.waitFor(() => deliveriesOf('vk_mi_paid').length > 0, 20_000);
    const [callback] = deliveriesOf('vk_mi_paid');
    expect(callback.path).toBe('/return');
    expect(receiver.verifies(callback, shopSecret)).toBe(true);
    // The page on a says how it ended, and takes no action any more.
    const ended = await openPage(a.url, token);
    expect(ended.page.text).toContain('data-stage="ended"');
    expect(ended.page.text).toContain('data-detailed-status="UNAVAILABLE"');
    const late = await act(a.url, token, 'cancel', { nonce });
    expect(late.status).toBe(409);
  });

  it('of two actions racing on the two instances, exactly one wins', async () => {
    const rounds = 8;
    for (let i = 0; i < rounds; i++) {
      const key = `vk_mi_race_${i}`;
      const { token, nonce } = await chosenOn(key);
      // Two final outcomes from pages with the page's one nonce, and the processor's report.
      const [first, second, processor] = await Promise.all([
        act(a.url, token, 'outcome', { nonce, outcome: 'paid' }),
        act(b.url, token, 'outcome', { nonce, outcome: 'failed', reason: 'DECLINED' }),
        http(`${(i % 2 ? a : b).url}/admin/payment-sessions/${key}`, {
          method: 'PUT',
          headers: admin,
          body: { merchantId: 'shop', status: 'FAILED', errorMessage: 'Declined' },
        }),
      ]);
      const statuses = [first.status, second.status, processor.status];
      expect({ key, winners: statuses.filter((s) => s === 200).length }).toEqual({
        key,
        winners: 1,
      });
      for (const loser of statuses.filter((s) => s !== 200)) expect([403, 409]).toContain(loser);
      const history = await http(`${b.url}/admin/payment-sessions/${key}/history`, {
        headers: admin,
      });
      expect(history.body.payload).toHaveLength(2);
      const [row] = await query<{ n: string }>(
        'SELECT COUNT(*) AS n FROM callback WHERE validation_key = $1',
        [key],
      );
      expect(Number(row.n)).toBe(1);
    }
  });

  it('answers identical init-iframe requests racing on the two instances alike: 200, one session, a token each', async () => {
    const rounds = 12;
    for (let round = 0; round < rounds; round++) {
      const key = `vk_mi_same_${round}`;
      const body = initIframeBody(key, receiver.url);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => initIframe((i % 2 ? a : b).url, body, shopKey)),
      );
      expect({ key, statuses: answers.map((answer) => answer.status) }).toEqual({
        key,
        statuses: answers.map(() => 200),
      });
      const tokens = answers.map((answer) => answer.body.payload[0].initializationToken as string);
      expect(new Set(tokens).size).toBe(tokens.length);
      // One session, created once, and every token opens its page on either instance.
      const history = await http(`${a.url}/admin/payment-sessions/${key}/history`, {
        headers: admin,
      });
      expect(history.body.payload).toHaveLength(1);
      expect((await lookup(b, key)).body.payload).toEqual([{ status: 'PENDING' }]);
      for (const [i, token] of tokens.entries()) {
        const { page } = await openPage((i % 2 ? b : a).url, token);
        expect({ key, token: i, status: page.status }).toEqual({ key, token: i, status: 200 });
        expect(page.text).toContain('data-stage="choose"');
      }
    }
  });

  it('expires each checkout once, whichever instance sweeps: one transition, one callback', async () => {
    const keys = Array.from({ length: 24 }, (_, i) => `vk_mi_expired_${i}`);
    for (const [i, key] of keys.entries()) await start(i % 2 ? a : b, key);
    // Time passes: the tokens' lifetime ends now, and both instances' jobs find them due.
    const past = Date.now() - 1000;
    await query("UPDATE checkout SET expires_at = $1 WHERE validation_key LIKE 'vk_mi_expired_%'", [
      past,
    ]);
    await query(
      "UPDATE checkout_token SET expires_at = $1 WHERE validation_key LIKE 'vk_mi_expired_%'",
      [past],
    );
    const deadline = Date.now() + 30_000;
    let pending = keys.length;
    while (pending > 0 && Date.now() < deadline) {
      await sleep(200);
      const [row] = await query<{ n: string }>(
        "SELECT COUNT(*) AS n FROM payment_session WHERE validation_key LIKE 'vk_mi_expired_%' AND status = 'PENDING'",
      );
      pending = Number(row.n);
    }
    expect(pending).toBe(0);
    const transitions = await query<{ validation_key: string; n: string }>(
      "SELECT validation_key, COUNT(*) AS n FROM payment_session_transition WHERE validation_key LIKE 'vk_mi_expired_%' AND to_status = 'NOT_COMPLETED' GROUP BY validation_key",
    );
    expect(transitions.map((t) => Number(t.n))).toEqual(keys.map(() => 1));
    await receiver.waitFor(() => keys.every((key) => deliveriesOf(key).length > 0), 30_000);
    // Both instances keep sweeping: nothing is expired, or called back, a second time.
    await sleep(2500);
    const callbacks = await query<{ validation_key: string; n: string }>(
      "SELECT validation_key, COUNT(*) AS n FROM callback WHERE validation_key LIKE 'vk_mi_expired_%' GROUP BY validation_key",
    );
    expect(callbacks.map((c) => Number(c.n))).toEqual(keys.map(() => 1));
    for (const key of keys) {
      const webhookIds = new Set(deliveriesOf(key).map((d) => d.webhookId));
      expect(webhookIds.size).toBe(1);
      expect(JSON.parse(deliveriesOf(key)[0].body)).toEqual({
        status: 'NOT_COMPLETED',
        validationKey: key,
        detailedStatus: 'EXPIRED',
      });
    }
    const history = await http(`${a.url}/admin/payment-sessions/${keys[0]}/history`, {
      headers: admin,
    });
    expect(history.body.payload[1]).toMatchObject({ to: 'NOT_COMPLETED', by: { kind: 'system' } });
  });
});
