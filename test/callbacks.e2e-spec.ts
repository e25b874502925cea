import { freePort } from './support/main-process.js';
import {
  adminHeaders,
  callbacksOf,
  callbacksWhen,
  expectEnvelope,
  http,
  startTestApp,
  successfulResponse,
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
  TestApp,
} from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { SeedRunner } from '../src/seeding/seed-runner.js';
import { validateSeed } from '../src/seeding/seed-validation.js';

const put = (t: TestApp, key: string, body: object) =>
  http(`${t.url}/admin/payment-sessions/${key}`, { method: 'PUT', headers: adminHeaders, body });
async function merchant(t: TestApp, id: string): Promise<string> {
  const r = await http(`${t.url}/admin/merchants`, {
    method: 'POST',
    headers: adminHeaders,
    body: { id, name: id },
  });
  expect(r.status).toBe(201);
  return r.body.callbackSecret as string;
}

describe('callbacks to the merchant (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let secret: string;

  beforeAll(async () => {
    // The receiver answers on this process's event loop, which the application shares: a time
    // limit of 3 s leaves a busy loop room to answer, while the 'hang' below still runs out of it.
    t = await startTestApp({ CALLBACK_RETRY_SCHEDULE: '1,1', CALLBACK_TIMEOUT_MS: '3000' });
    receiver = await WebhookReceiver.start();
    secret = await merchant(t, 'acme');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('calls back each final or incomplete status on the right URL, signed, with the flat body', async () => {
    const returnUrl = `${receiver.url}/s/return?order=42`;
    const errorUrl = `${receiver.url}/s/error`;
    expect(
      (
        await put(t, 'vk_cb_s', {
          merchantId: 'acme',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse(),
          returnUrl,
          errorUrl,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await put(t, 'vk_cb_f', {
          merchantId: 'acme',
          status: 'FAILED',
          errorMessage: 'Declined',
          returnUrl,
          errorUrl,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await put(t, 'vk_cb_n', {
          merchantId: 'acme',
          status: 'NOT_COMPLETED',
          detailedStatus: 'ABANDONED_BY_USER',
          returnUrl,
        })
      ).status,
    ).toBe(201);
    await receiver.waitFor(
      () => receiver.to('/s/return').length === 2 && receiver.to('/s/error').length === 1,
    );

    const bodies = receiver.deliveries
      .filter((d) => d.path.startsWith('/s/'))
      .map((d) => ({ path: d.path, json: JSON.parse(d.body) }));
    const successful = bodies.find((b) => b.json.validationKey === 'vk_cb_s')!;
    expect(successful.path).toBe('/s/return');
    expect(successful.json).toMatchObject({
      status: 'SUCCESSFUL',
      validationKey: 'vk_cb_s',
      traceId: 'TRC-1',
      money: { amount: 148.5, currency: 'EUR', presentationAmount: 'EUR148.50' },
    });
    expect(bodies.find((b) => b.json.validationKey === 'vk_cb_f')).toEqual({
      path: '/s/error',
      json: { status: 'FAILED', validationKey: 'vk_cb_f', errorMessage: 'Declined' },
    });
    expect(bodies.find((b) => b.json.validationKey === 'vk_cb_n')).toEqual({
      path: '/s/return',
      json: {
        status: 'NOT_COMPLETED',
        validationKey: 'vk_cb_n',
        detailedStatus: 'ABANDONED_BY_USER',
      },
    });
    for (const delivery of receiver.deliveries.filter((d) => d.path.startsWith('/s/'))) {
      expect(delivery.webhookId).toMatch(/^msg_[A-Za-z0-9_-]{20,}$/);
      expect(receiver.verifies(delivery, secret)).toBe(true);
      expect(receiver.verifies(delivery, 'whsec_' + Buffer.alloc(32, 7).toString('base64'))).toBe(
        false,
      );
    }
    // The lookup never shows the URLs.
    const lookup = await http(`${t.url}/api/gateway/payment-status/vk_cb_s`);
    expect(lookup.text).not.toContain('/s/return');
    // The operator sees each delivered once, the URL without its query string.
    const listed = await callbacksWhen(t.url, 'vk_cb_s', ([c]) => c?.state === 'delivered');
    expect(listed.body.payload).toEqual([
      expect.objectContaining({
        status: 'SUCCESSFUL',
        state: 'delivered',
        url: `${receiver.url}/s/return`,
        attempts: [expect.objectContaining({ httpStatus: 200 })],
      }),
    ]);
  });

  it('makes one callback per transition and none for repeats, PENDING or a session without URLs', async () => {
    const url = `${receiver.url}/t`;
    await put(t, 'vk_cb_t', { merchantId: 'acme', status: 'PENDING', returnUrl: url });
    await put(t, 'vk_cb_t', { merchantId: 'acme', status: 'NOT_COMPLETED' });
    await put(t, 'vk_cb_t', { merchantId: 'acme', status: 'NOT_COMPLETED' });
    await put(t, 'vk_cb_t', {
      merchantId: 'acme',
      status: 'SUCCESSFUL',
      paymentResponse: successfulResponse(),
    });
    await put(t, 'vk_cb_t', {
      merchantId: 'acme',
      status: 'SUCCESSFUL',
      paymentResponse: successfulResponse(),
    });
    await put(t, 'vk_cb_none', { merchantId: 'acme', status: 'FAILED', errorMessage: 'x' });
    // The operator lists every callback the reports made; once all are delivered none is due
    // again, so the receiver has had every request it will get.
    const listed = await callbacksWhen(t.url, 'vk_cb_t', (callbacks) =>
      callbacks.every((c) => c.state === 'delivered'),
    );
    expect(listed.body.payload.map((c: { status: string }) => c.status).sort()).toEqual([
      'NOT_COMPLETED',
      'SUCCESSFUL',
    ]);
    // Callbacks are not ordered (the status lookup decides): compare them as a set.
    expect(
      receiver
        .to('/t')
        .map((d) => JSON.parse(d.body).status)
        .sort(),
    ).toEqual(['NOT_COMPLETED', 'SUCCESSFUL']);
    expect((await callbacksOf(t.url, 'vk_cb_none')).body.payload).toEqual([]);
    expectEnvelope(await callbacksOf(t.url, 'vk_cb_nobody'), 404, 'NOT_FOUND');
  });

  it('retries after a 500 and a timeout with the same webhook-id, and records every attempt', async () => {
    receiver.answer('/flaky', 500, 'hang', 200);
    await put(t, 'vk_cb_flaky', {
      merchantId: 'acme',
      status: 'FAILED',
      errorMessage: 'x',
      errorUrl: `${receiver.url}/flaky`,
    });
    // 500, about 1 s, 3 s without an answer, about 1 s, 200: about 5 s at the least.
    await receiver.waitFor(() => receiver.to('/flaky').length === 3, 20_000);
    const ids = new Set(receiver.to('/flaky').map((d) => d.webhookId));
    expect(ids.size).toBe(1);
    for (const delivery of receiver.to('/flaky'))
      expect(receiver.verifies(delivery, secret)).toBe(true);
    const listed = await callbacksWhen(t.url, 'vk_cb_flaky', ([c]) => c?.state === 'delivered');
    const [callback] = listed.body.payload;
    expect(callback.state).toBe('delivered');
    expect(callback.webhookId).toBe([...ids][0]);
    expect(
      callback.attempts.map(
        (a: { httpStatus?: number; error?: string }) => a.httpStatus ?? a.error,
      ),
    ).toEqual([500, 'no answer in time', 200]);
  }, 60_000);

  it('fails a callback after the schedule on refused connections; the operator redelivers it', async () => {
    const port = await freePort();
    await put(t, 'vk_cb_down', {
      merchantId: 'acme',
      status: 'FAILED',
      errorMessage: 'x',
      errorUrl: `http://127.0.0.1:${port}/down`,
    });
    const listed = await callbacksWhen(t.url, 'vk_cb_down', ([c]) => c?.state === 'failed', 10_000);
    const [failed] = listed.body.payload;
    expect(failed.state).toBe('failed');
    expect(failed.attempts).toHaveLength(3);
    expect(failed.attempts[0].error).toMatch(/connection failed/);
    expect(failed.nextAttemptAt).toBeUndefined();

    const up = await WebhookReceiver.start(port);
    try {
      const redelivered = await http(`${t.url}/admin/callbacks/${failed.id}/redeliver`, {
        method: 'POST',
        headers: adminHeaders,
      });
      expect(redelivered.status).toBe(202);
      expect(redelivered.body.state).toBe('pending');
      await up.waitFor(() => up.deliveries.length === 1);
      expect(up.deliveries[0].webhookId).toBe(failed.webhookId);
      expect(up.verifies(up.deliveries[0], secret)).toBe(true);
    } finally {
      await up.close();
    }
    expectEnvelope(
      await http(`${t.url}/admin/callbacks/0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d/redeliver`, {
        method: 'POST',
        headers: adminHeaders,
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('signs with the old and the new secret for the overlap after a rotation', async () => {
    const rotated = await http(`${t.url}/admin/merchants/acme/callback-secret`, {
      method: 'POST',
      headers: adminHeaders,
    });
    expect(rotated.status).toBe(201);
    const fresh = rotated.body.callbackSecret as string;
    expect(fresh).not.toBe(secret);
    await put(t, 'vk_cb_rot', {
      merchantId: 'acme',
      status: 'FAILED',
      errorMessage: 'x',
      errorUrl: `${receiver.url}/rot`,
    });
    await receiver.waitFor(() => receiver.to('/rot').length === 1);
    const [delivery] = receiver.to('/rot');
    expect(delivery.signature.split(' ')).toHaveLength(2);
    expect(receiver.verifies(delivery, fresh)).toBe(true);
    expect(receiver.verifies(delivery, secret)).toBe(true);
    secret = fresh;
  });

  it('stores no callback for seeded sessions unless asked to', async () => {
    const seed = await validateSeed({
      paymentSessions: [
        {
          validationKey: 'vk_cb_seed',
          merchantId: 'acme',
          status: 'FAILED',
          errorMessage: 'x',
          errorUrl: `${receiver.url}/seed`,
        },
      ],
    });
    if (!seed.ok) throw new Error(JSON.stringify(seed.errors));
    await t.app.get(SeedRunner).run(seed.seed);
    expect((await callbacksOf(t.url, 'vk_cb_seed')).body.payload).toEqual([]);
    const asked = await validateSeed({
      paymentSessions: [
        {
          validationKey: 'vk_cb_seed2',
          merchantId: 'acme',
          status: 'FAILED',
          errorMessage: 'x',
          errorUrl: `${receiver.url}/seed`,
        },
      ],
    });
    if (!asked.ok) throw new Error(JSON.stringify(asked.errors));
    await t.app.get(SeedRunner).run(asked.seed, { callbacks: true });
    await receiver.waitFor(() => receiver.to('/seed').length === 1);
  });

  it('refuses a callback URL that is not an absolute http(s) URL of at most 2048 characters', async () => {
    for (const returnUrl of [
      'ftp://merchant.example/x',
      '/relative',
      `https://merchant.example/${'x'.repeat(2048)}`,
      'not a url',
    ]) {
      const r = await put(t, 'vk_cb_bad', { merchantId: 'acme', status: 'PENDING', returnUrl });
      const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(error.field).toBe('returnUrl');
    }
  });
});

describe('callbacks in production (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({
      NODE_ENV: 'production',
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      CALLBACK_RETRY_SCHEDULE: '60',
    });
    receiver = await WebhookReceiver.start();
    await merchant(t, 'acme');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses plain http callback URLs', async () => {
    const r = await put(t, 'vk_prod_http', {
      merchantId: 'acme',
      status: 'PENDING',
      returnUrl: 'http://merchant.example/return',
    });
    const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(error).toMatchObject({
      field: 'returnUrl',
      message: 'must be an https URL in production',
    });
  });

  it.each(['127.0.0.1', 'localhost', '[::1]', '169.254.169.254', '10.0.0.8'])(
    'never connects to a loopback, private or metadata address (%s)',
    async (host) => {
      const port = new URL(receiver.url).port;
      const key = `vk_prod_${host.replace(/\W/g, '_')}`;
      expect(
        (
          await put(t, key, {
            merchantId: 'acme',
            status: 'FAILED',
            errorMessage: 'x',
            errorUrl: `https://${host}:${port}/private`,
          })
        ).status,
      ).toBe(201);
      const listed = await callbacksWhen(t.url, key, ([c]) => (c?.attempts.length ?? 0) > 0);
      const attempts: { error?: string }[] = listed.body.payload[0].attempts;
      expect(attempts[0].error).toBe('the address may not be reached');
      expect(receiver.to('/private')).toEqual([]);
    },
  );
});
