import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { act, openPage } from './support/checkout.js';
import {
  adminHeaders,
  expectEnvelope,
  http,
  HttpResult,
  startTestApp,
  TestApp,
} from './support/test-app.js';

const DEMO_SEED = JSON.parse(readFileSync('seeds/demo.json', 'utf8')) as {
  merchants: { id: string; apiKeys: string[]; callbackSecret: string }[];
};
const DEMO = DEMO_SEED.merchants.find((m) => m.id === 'demo')!;
const ORDER = {
  amount: '12.50',
  currency: 'EUR',
  description: 'Order 1001: a pot of tea',
  countryCode: 'IE',
  languagePreference: 'EN',
};

/** A request with a Host header of our choosing (fetch sets its own). */
function withHost(
  url: string,
  host: string,
  method = 'GET',
  body?: object,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: Number(target.port),
        method,
        path: target.pathname,
        headers: {
          host,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

const scriptsOf = (html: string) => [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);

/** The demo shop's view of a payment once `settled` holds (the callback comes in the background). */
async function paymentWhen(
  t: TestApp,
  key: string,
  settled: (payment: { callbacks: unknown[] }) => boolean,
) {
  const deadline = Date.now() + 20_000;
  let answer: HttpResult;
  do {
    answer = await http(`${t.url}/demo/payments/${key}`);
    if (answer.status === 200 && settled(answer.body.payload[0])) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
  return answer;
}

describe('the sandbox: home page and demo shop (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key', CHECKOUT_SANDBOX: 'true' });
    await t.seed(DEMO_SEED);
  });
  afterAll(() => t?.close());

  it('serves at / a page saying what runs here, with the demo key and the links', async () => {
    const home = await http(`${t.url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = home.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(home.text).toContain('<html lang="en">');
    for (const link of ['href="/docs"', 'href="/demo"', 'href="/docs-json"']) {
      expect(home.text).toContain(link);
    }
    expect(home.text).toContain(`<code id="demo-key">${DEMO.apiKeys[0]}</code>`);
    // Handlebars escapes `=` too.
    expect(home.text).toContain(DEMO.callbackSecret.replace(/=/g, '&#x3D;'));
    expect(home.text).toContain(
      `curl -H 'key: ${DEMO.apiKeys[0]}' '${t.url}/api/crypto-currency-protocol-processors?countryCode=IE'`,
    );
    expect(scriptsOf(home.text)).toEqual([]);
    const css = await http(`${t.url}/demo/assets/sandbox.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('etag')).toMatch(/^"/);
  });

  it('names an icon on its pages, served as an SVG drawing from this origin', async () => {
    for (const page of ['/', '/demo']) {
      const html = (await http(`${t.url}${page}`)).text;
      expect(html).toContain(
        '<link rel="icon" type="image/svg+xml" href="/demo/assets/favicon.svg">',
      );
    }
    const icon = await http(`${t.url}/demo/assets/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(icon.headers.get('etag')).toMatch(/^"/);
    expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it('serves the demo shop page: the widget script from the gateway, no inline script', async () => {
    const demo = await http(`${t.url}/demo`);
    expect(demo.status).toBe(200);
    const csp = demo.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(scriptsOf(demo.text)).toEqual([
      ' src="/widgets/sgpg.js" defer',
      ' src="/demo/assets/demo.js" defer',
    ]);
    expect(demo.text).toContain('<label for="amount">Amount</label>');
    expect(demo.text).not.toContain(DEMO.apiKeys[0]);
    const script = await http(`${t.url}/demo/assets/demo.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain("window.showPaymentIframe('widget-container'");
  });

  it('runs a payment: init-iframe with the demo key, the page, the signed callback, the status', async () => {
    const started = await http(`${t.url}/demo/payments`, { method: 'POST', body: ORDER });
    expect(started.status).toBe(200);
    expect(started.headers.get('cache-control')).toBe('no-store');
    const payment = started.body.payload[0];
    expect(payment.validationKey).toMatch(/^vk_demo_[\w-]+$/);
    expect(payment.initializationToken).toMatch(/^ct_[\w-]{43}$/);
    // The exchange as it happened, without the key: it never goes to a browser.
    expect(payment.initIframe).toMatchObject({
      method: 'POST',
      path: '/api/gateway/init-iframe',
      headers: { 'x-api-version': '1' },
      status: 200,
      requestBody: {
        money: { amount: '12.50', currency: 'EUR' },
        validationKey: payment.validationKey,
        returnUrl: `${t.url}/demo/callbacks/return`,
        errorUrl: `${t.url}/demo/callbacks/error`,
      },
      responseBody: { payload: [{ initializationToken: payment.initializationToken }] },
    });
    expect(started.text).not.toContain(DEMO.apiKeys[0]);
    // The session is the demo merchant's: its key reads it.
    const history = await http(`${t.url}/admin/payment-sessions/${payment.validationKey}/history`, {
      headers: adminHeaders,
    });
    expect(history.body.payload[0].by).toEqual({ kind: 'merchant', id: 'demo' });

    const token = payment.initializationToken;
    let { nonce } = await openPage(t.url, token);
    await act(t.url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' });
    ({ nonce } = await openPage(t.url, token));
    expect((await act(t.url, token, 'outcome', { nonce, outcome: 'paid' })).status).toBe(200);

    const shown = await paymentWhen(t, payment.validationKey, (p) => p.callbacks.length > 0);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const view = shown.body.payload[0];
    expect(view.callbacks).toEqual([
      {
        webhookId: expect.stringMatching(/^msg_/),
        signedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        kind: 'return',
        deliveries: 1,
        signature: 'verified',
        body: expect.objectContaining({
          status: 'SUCCESSFUL',
          validationKey: payment.validationKey,
          description: 'Order 1001: a pot of tea',
        }),
      },
    ]);
    expect(view.statusLookup).toMatchObject({
      method: 'GET',
      path: `/api/gateway/payment-status/${payment.validationKey}`,
      status: 200,
      responseBody: { payload: [{ status: 'SUCCESSFUL' }] },
    });
    expect(view.statusLookup.headers.key).not.toBe(DEMO.apiKeys[0]);
  });

  it("shows the gateway's refusal of init-iframe as it came, without a token", async () => {
    const refused = await http(`${t.url}/demo/payments`, {
      method: 'POST',
      body: { ...ORDER, amount: '0' },
    });
    expect(refused.status).toBe(200);
    expect(refused.body.payload[0].initializationToken).toBeUndefined();
    expect(refused.body.payload[0].initIframe).toMatchObject({
      status: 400,
      responseBody: { errors: [{ errorCode: 'INVALID_PARAMETER', field: 'money.amount' }] },
    });
    const empty = await http(`${t.url}/demo/payments`, {
      method: 'POST',
      body: { ...ORDER, amount: '' },
    });
    expect(expectEnvelope(empty, 400, 'INVALID_PARAMETER')[0].field).toBe('amount');
    expectEnvelope(await http(`${t.url}/demo/payments/vk_demo_none`), 404, 'NOT_FOUND');
    expectEnvelope(await http(`${t.url}/demo/payments/vk_other`), 400, 'INVALID_PARAMETER');
  });

  it('takes a callback only with a signature of the demo secret, once per webhook-id', async () => {
    const started = await http(`${t.url}/demo/payments`, { method: 'POST', body: ORDER });
    const key = started.body.payload[0].validationKey as string;
    const body = JSON.stringify({ status: 'NOT_COMPLETED', validationKey: key });
    const at = new Date();
    const signature = (secret: string) => new Webhook(secret).sign('msg_demo_test_1', at, body);
    const send = (signed: string, timestamp = at) =>
      http(`${t.url}/demo/callbacks/error`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'msg_demo_test_1',
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signed,
        },
        rawBody: body,
      });
    const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const forged = await send(signature(other));
    expect(expectEnvelope(forged, 400, 'INVALID_PARAMETER')[0].field).toBe('webhook-signature');
    const stale = await send(signature(DEMO.callbackSecret), new Date(Date.now() - 3_600_000));
    expectEnvelope(stale, 400, 'INVALID_PARAMETER');
    expect((await send(signature(DEMO.callbackSecret))).status).toBe(204);
    expect((await send(signature(DEMO.callbackSecret))).status).toBe(204);
    const view = (await http(`${t.url}/demo/payments/${key}`)).body.payload[0];
    expect(view.callbacks).toEqual([
      expect.objectContaining({ webhookId: 'msg_demo_test_1', kind: 'error', deliveries: 2 }),
    ]);
    expectEnvelope(
      await http(`${t.url}/demo/callbacks/elsewhere`, { method: 'POST', body: {} }),
      400,
      'INVALID_PARAMETER',
    );
  });

  it('calls itself back only at its own address, whatever Host a request names', async () => {
    const port = new URL(t.url).port;
    const local = await withHost(`${t.url}/demo`, `localhost:${port}`);
    expect(local.text).not.toContain('role="alert"');
    const elsewhere = await withHost(`${t.url}/demo`, `shop.example:${port}`);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.text).toContain(`open this demo at <a href="${t.url}/demo">`);
    const started = await withHost(`${t.url}/demo/payments`, 'evil.example', 'POST', ORDER);
    const returnUrl = JSON.parse(started.text).payload[0].initIframe.requestBody.returnUrl;
    expect(returnUrl).toBe(`${t.url}/demo/callbacks/return`);
    const named = await withHost(`${t.url}/demo/payments`, `localhost:${port}`, 'POST', ORDER);
    expect(JSON.parse(named.text).payload[0].initIframe.requestBody.returnUrl).toBe(
      `http://localhost:${port}/demo/callbacks/return`,
    );
  });

  it('says so on the home page once the demo key is revoked', async () => {
    const keys = await http(`${t.url}/admin/merchants/demo/api-keys`, { headers: adminHeaders });
    const revoked = await http(
      `${t.url}/admin/merchants/demo/api-keys/${keys.body.payload[0].keyId}`,
      { method: 'DELETE', headers: adminHeaders },
    );
    expect(revoked.status).toBe(204);
    const home = await http(`${t.url}/`);
    expect(home.text).not.toContain(DEMO.apiKeys[0]);
    expect(home.text).toContain(
      'The published key is revoked: create one with POST /admin/merchants/demo/api-keys.',
    );
    const refused = await http(`${t.url}/demo/payments`, { method: 'POST', body: ORDER });
    expect(refused.body.payload[0].initIframe.status).toBe(401);
  });
});

describe('the sandbox under CONTEXT_PATH (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      AUTH_MODE: 'api-key',
      CHECKOUT_SANDBOX: 'true',
      CONTEXT_PATH: '/pegasus-ci',
    });
    await t.seed(DEMO_SEED);
  });
  afterAll(() => t?.close());

  it('serves its home page at the prefix itself, and the demo shop below it', async () => {
    const home = await http(t.url);
    expect(home.status).toBe(200);
    expect(home.text).toContain('href="/pegasus-ci/demo"');
    expect(home.text).toContain('href="/pegasus-ci/docs"');
    const demo = await http(`${t.url}/demo`);
    expect(scriptsOf(demo.text)).toEqual([
      ' src="/pegasus-ci/widgets/sgpg.js" defer',
      ' src="/pegasus-ci/demo/assets/demo.js" defer',
    ]);
    const started = await http(`${t.url}/demo/payments`, { method: 'POST', body: ORDER });
    expect(started.body.payload[0].initIframe.status).toBe(200);
    expect(started.body.payload[0].initIframe.requestBody.returnUrl).toBe(
      `${t.url}/demo/callbacks/return`,
    );
    // The host root is not the sandbox's.
    expectEnvelope(await http(`${new URL(t.url).origin}/`), 404, 'NOT_FOUND');
  });
});

describe('outside the sandbox (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
  });
  afterAll(() => t?.close());

  it('serves neither the home page nor the demo shop, nor documents them', async () => {
    for (const path of ['/', '/demo', '/demo/assets/demo.js', '/demo/payments/vk_demo_x']) {
      expectEnvelope(await http(`${t.url}${path}`), 404, 'NOT_FOUND');
    }
    expectEnvelope(
      await http(`${t.url}/demo/payments`, { method: 'POST', body: ORDER }),
      404,
      'NOT_FOUND',
    );
    const doc = (await http(`${t.url}/docs-json`)).body;
    expect(Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/demo'))).toEqual([]);
    expect(doc.tags.map((tag: { name: string }) => tag.name)).not.toContain('Sandbox');
  });
});
