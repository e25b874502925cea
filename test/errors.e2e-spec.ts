import { Transactions } from '../src/database/transactions.js';
import { adminHeaders, expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';

const CATALOG = '/api/crypto-currency-protocol-processors';

/** Nothing a client sees may name the stack, the SQL, a file or a class. */
function expectNoInternals(text: string) {
  expect(text).not.toMatch(
    /\bat \w+.*\(|\.ts:\d+|\.js:\d+|\/work\/|node_modules|SELECT |INSERT |SQLITE|QueryFailedError|TypeORM|Exception\b|stack/i,
  );
}

describe('errors and the request pipeline (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers an unknown route with the NOT_FOUND envelope', async () => {
    const r = await http(t.url + '/api/nothing-here?x=1');
    const [error] = expectEnvelope(r, 404, 'NOT_FOUND');
    expect(error).toEqual({
      type: 'FATAL',
      errorCode: 'NOT_FOUND',
      message: 'No route GET /api/nothing-here.',
    });
  });

  it('answers a wrong method with 405 and the allowed methods', async () => {
    const r = await http(t.url + CATALOG, { method: 'DELETE' });
    expectEnvelope(r, 405, 'METHOD_NOT_ALLOWED');
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    const post = await http(t.url + '/health/live', { method: 'POST', body: {} });
    expectEnvelope(post, 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers a body that is not JSON with MALFORMED_REQUEST', async () => {
    const r = await http(t.url + '/admin/crypto-pairs', {
      method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      rawBody: '{"currencyCode": "USDT",',
    });
    const [error] = expectEnvelope(r, 400, 'MALFORMED_REQUEST');
    expect(error.type).toBe('VALIDATION');
    expectNoInternals(r.text);
  });

  it.each([
    [
      '{"merchantId":"demo","status":"PENDING","__proto__":{"admin":true}}',
      '__proto__',
      '__proto__',
    ],
    [
      '{"merchantId":"demo","status":"SUCCESSFUL","paymentResponse":{"money":{"__proto__":null}}}',
      '__proto__',
      'paymentResponse.money.__proto__',
    ],
    [
      '{"merchantId":"demo","items":[1,{"constructor":{"prototype":{"admin":true}}}]}',
      'constructor.prototype',
      'items[1].constructor.prototype',
    ],
  ])(
    'refuses the valid JSON %s with a 400 that names the key %s and where it is',
    async (body, key, field) => {
      const r = await http(t.url + '/admin/payment-sessions/vk_proto_0001', {
        method: 'PUT',
        headers: { ...adminHeaders, 'content-type': 'application/json' },
        rawBody: body,
      });
      const [error] = expectEnvelope(r, 400, 'MALFORMED_REQUEST');
      expect(error).toEqual({
        type: 'VALIDATION',
        errorCode: 'MALFORMED_REQUEST',
        message: `The request body holds the key ${key} (at ${field}), which is refused: it could alter the objects that read it.`,
        field,
      });
      expect(error.message).not.toMatch(/not valid JSON/);
    },
  );

  it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded'])(
    'answers a %s body with UNSUPPORTED_MEDIA_TYPE',
    async (type) => {
      const r = await http(t.url + '/admin/crypto-pairs', {
        method: 'POST',
        headers: { ...adminHeaders, 'content-type': type },
        rawBody: 'currencyCode=USDT',
      });
      const [error] = expectEnvelope(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(error.type).toBe('VALIDATION');
    },
  );

  it('answers a body over 1 MiB with PAYLOAD_TOO_LARGE and stores nothing', async () => {
    const r = await http(t.url + '/admin/crypto-pairs', {
      method: 'POST',
      headers: adminHeaders,
      body: {
        currencyCode: 'USDT',
        currencyName: 'x'.repeat(1024 * 1024),
        protocol: 'TRC20',
        countryCode: 'IE',
      },
    });
    expectEnvelope(r, 413, 'PAYLOAD_TOO_LARGE');
    const list = await http(t.url + '/admin/crypto-pairs', { headers: adminHeaders });
    expect(list.body.page.total).toBe(0);
  });

  it('echoes a sane x-request-id and generates one otherwise, on success and on error', async () => {
    const given = await http(t.url + CATALOG, { headers: { 'x-request-id': 'req-42.abc' } });
    expect(given.headers.get('x-request-id')).toBe('req-42.abc');
    const generated = await http(t.url + '/nope');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await http(t.url + CATALOG, { headers: { 'x-request-id': 'a b<script>' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const undecodable = await http(t.url + '/api/gateway/payment-status/%E0%A4%A');
    expect(undecodable.headers.get('x-request-id')).toBeTruthy();
  });

  it('sends security headers and no framework banner', async () => {
    const r = await http(t.url + CATALOG);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-powered-by')).toBeNull();
  });

  it('answers liveness and readiness', async () => {
    const live = await http(t.url + '/health/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await http(t.url + '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
  });

  it('turns an unexpected fault into INTERNAL_ERROR without leaking anything', async () => {
    const broken = await startTestApp();
    try {
      // Between transactions, as the service's own writes are made (a statement sent beside them
      // would join whichever transaction is open on SQLite's one connection).
      await broken.app.get(Transactions).outside('DROP TABLE crypto_pair');
      const r = await http(broken.url + CATALOG + '?countryCode=ZZ');
      const [error] = expectEnvelope(r, 500, 'INTERNAL_ERROR');
      expect(error).toEqual({
        type: 'FATAL',
        errorCode: 'INTERNAL_ERROR',
        message: 'An unexpected error occurred.',
      });
      expectNoInternals(r.text);
      const stillUp = await http(broken.url + '/health/live');
      expect(stillUp.status).toBe(200);
    } finally {
      await broken.close();
    }
  });
});
