import { createHash } from 'node:crypto';
import {
  ADMIN_TOKEN,
  adminHeaders,
  expectEnvelope,
  http,
  startTestApp,
  TestApp,
} from './support/test-app.js';
import { rawRequest } from './support/raw-http.js';

const CATALOG = '/api/crypto-currency-protocol-processors';
const STATUS = '/api/gateway/payment-status/';

const ACME_KEY = 'acme-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const GLOBEX_KEY = 'globex-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const ACME_SESSION = 'vk_acme_pending_0001';
const GLOBEX_SESSION = 'vk_globex_pending_0001';
const GLOBEX_FINAL_SESSION = 'vk_globex_failed_0002';

async function createKey(t: TestApp, merchantId: string) {
  const r = await http(`${t.url}/admin/merchants/${merchantId}/api-keys`, {
    method: 'POST',
    headers: adminHeaders,
  });
  expect(r.status).toBe(201);
  return r.body as { keyId: string; apiKey: string };
}

describe('authentication (e2e, AUTH_MODE=api-key)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    await t.seed({
      cryptoPairs: [
        {
          currencyCode: 'USDT',
          currencyName: 'Tether',
          protocol: 'TRC20',
          countryCode: 'IE',
          enabled: true,
        },
      ],
      merchants: [
        { id: 'acme', name: 'Acme', apiKeys: [ACME_KEY] },
        { id: 'globex', name: 'Globex', apiKeys: [GLOBEX_KEY] },
      ],
      paymentSessions: [
        { validationKey: ACME_SESSION, merchantId: 'acme', status: 'PENDING' },
        { validationKey: GLOBEX_SESSION, merchantId: 'globex', status: 'PENDING' },
        {
          validationKey: GLOBEX_FINAL_SESSION,
          merchantId: 'globex',
          status: 'FAILED',
          errorMessage: 'Declined',
        },
      ],
    });
  });
  afterAll(() => t.close());

  describe('merchant API keys', () => {
    it('refuses a request without a key with a 401 UNAUTHORIZED envelope', async () => {
      const r = await http(t.url + CATALOG);
      const errors = expectEnvelope(r, 401, 'UNAUTHORIZED');
      expect(errors).toHaveLength(1);
      expect(errors[0].type).toBe('FATAL');
    });

    it('refuses an empty key with a 401', async () => {
      const r = await http(t.url + CATALOG, { headers: { key: '' } });
      expectEnvelope(r, 401, 'UNAUTHORIZED');
    });

    it('refuses an unknown key with a 401', async () => {
      const r = await http(t.url + CATALOG, {
        headers: { key: 'unknown-key-0123456789-abcdefghijklmnopqrstuvwxyz' },
      });
      const errors = expectEnvelope(r, 401, 'UNAUTHORIZED');
      expect(errors[0].type).toBe('FATAL');
    });

    it('refuses an unknown key on the payment status route with a 401, not a 404', async () => {
      const r = await http(t.url + STATUS + ACME_SESSION, {
        headers: { key: 'unknown-key-0123456789-abcdefghijklmnopqrstuvwxyz' },
      });
      expectEnvelope(r, 401, 'UNAUTHORIZED');
    });

    it('accepts a known key in the `key` header', async () => {
      const r = await http(t.url + CATALOG, { headers: { key: ACME_KEY } });
      expect(r.status).toBe(200);
      expect(r.body.page.total).toBe(1);
    });

    it('accepts the `x-api-key` alias', async () => {
      const r = await http(t.url + CATALOG, { headers: { 'x-api-key': ACME_KEY } });
      expect(r.status).toBe(200);
      expect(r.body.payload).toEqual([
        { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
      ]);
      const status = await http(t.url + STATUS + ACME_SESSION, {
        headers: { 'x-api-key': ACME_KEY },
      });
      expect(status.status).toBe(200);
      expect(status.body).toEqual({ payload: [{ status: 'PENDING' }] });
    });

    it('lets a merchant read its own session', async () => {
      const r = await http(t.url + STATUS + ACME_SESSION, { headers: { key: ACME_KEY } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ payload: [{ status: 'PENDING' }] });
      expect(r.headers.get('cache-control')).toBe('no-store');
    });

    it('answers another merchant’s session with the same bytes as an unknown or impossible key', async () => {
      const foreign = await http(t.url + STATUS + GLOBEX_SESSION, { headers: { key: ACME_KEY } });
      const unknown = await http(t.url + STATUS + 'vk_does_not_exist_0001', {
        headers: { key: ACME_KEY },
      });
      const tooLong = await http(t.url + STATUS + 'k'.repeat(300), { headers: { key: ACME_KEY } });

      for (const r of [foreign, unknown, tooLong]) {
        expectEnvelope(r, 404, 'TRANSACTION_FAILED');
      }
      expect(foreign.body).toEqual({
        errors: [
          {
            type: 'FATAL',
            errorCode: 'TRANSACTION_FAILED',
            message: 'Transaction declined: incorrect validation key, no records found.',
            field: 'validationKey',
          },
        ],
      });
      expect(foreign.text).toBe(unknown.text);
      expect(tooLong.text).toBe(unknown.text);
      expect(foreign.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
      expect(tooLong.headers.get('content-type')).toBe(unknown.headers.get('content-type'));

      // The owner still sees it: the 404 was about ownership, not about the session.
      const own = await http(t.url + STATUS + GLOBEX_SESSION, { headers: { key: GLOBEX_KEY } });
      expect(own.status).toBe(200);
    });

    it('keeps a final answer its owner read from every other merchant', async () => {
      // The owner's read makes the final answer a kept, serialised one; ownership still holds.
      const own = await http(t.url + STATUS + GLOBEX_FINAL_SESSION, {
        headers: { key: GLOBEX_KEY },
      });
      expect(own.body).toEqual({ payload: [{ status: 'FAILED', errorMessage: 'Declined' }] });
      const foreign = await http(t.url + STATUS + GLOBEX_FINAL_SESSION, {
        headers: { key: ACME_KEY },
      });
      const unknown = await http(t.url + STATUS + 'vk_does_not_exist_0002', {
        headers: { key: ACME_KEY },
      });
      expect(foreign.status).toBe(404);
      expect(foreign.text).toBe(unknown.text);
    });

    it('serves the health routes without a key', async () => {
      const live = await http(t.url + '/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      const ready = await http(t.url + '/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ok');
    });

    it('refuses api-version 2 with a 400 UNSUPPORTED_API_VERSION', async () => {
      const r = await http(t.url + CATALOG, { headers: { key: ACME_KEY, 'api-version': '2' } });
      const errors = expectEnvelope(r, 400, 'UNSUPPORTED_API_VERSION');
      expect(errors[0].type).toBe('VALIDATION');
      const alias = await http(t.url + CATALOG, {
        headers: { key: ACME_KEY, 'x-api-version': '2' },
      });
      expectEnvelope(alias, 400, 'UNSUPPORTED_API_VERSION');
    });

    it('accepts api-version 1', async () => {
      const r = await http(t.url + CATALOG, { headers: { key: ACME_KEY, 'api-version': '1' } });
      expect(r.status).toBe(200);
    });
  });

  describe('keys created and revoked through the operator API', () => {
    it('a created key works on the next request', async () => {
      const { keyId, apiKey } = await createKey(t, 'acme');
      expect(keyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
      const r = await http(t.url + STATUS + ACME_SESSION, { headers: { key: apiKey } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ payload: [{ status: 'PENDING' }] });
    });

    it('a revoked key is refused on the very next request, even after it was used', async () => {
      const { keyId, apiKey } = await createKey(t, 'acme');
      const before = await http(t.url + CATALOG, { headers: { key: apiKey } });
      expect(before.status).toBe(200);

      const revoke = await http(`${t.url}/admin/merchants/acme/api-keys/${keyId}`, {
        method: 'DELETE',
        headers: adminHeaders,
      });
      expect(revoke.status).toBe(204);
      expect(revoke.text).toBe('');

      const after = await http(t.url + CATALOG, { headers: { key: apiKey } });
      expectEnvelope(after, 401, 'UNAUTHORIZED');
      const status = await http(t.url + STATUS + ACME_SESSION, { headers: { key: apiKey } });
      expectEnvelope(status, 401, 'UNAUTHORIZED');

      // The merchant's other keys keep working.
      const other = await http(t.url + CATALOG, { headers: { key: ACME_KEY } });
      expect(other.status).toBe(200);
    });

    it('revoking an unknown key id is a 404 NOT_FOUND', async () => {
      const r = await http(
        `${t.url}/admin/merchants/acme/api-keys/0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d`,
        { method: 'DELETE', headers: adminHeaders },
      );
      expectEnvelope(r, 404, 'NOT_FOUND');
    });

    it('creating a key for an unknown merchant is a 404 NOT_FOUND', async () => {
      const r = await http(`${t.url}/admin/merchants/nobody/api-keys`, {
        method: 'POST',
        headers: adminHeaders,
      });
      expectEnvelope(r, 404, 'NOT_FOUND');
    });

    it('creates random keys of at least 32 bytes, each different', async () => {
      const first = await createKey(t, 'globex');
      const second = await createKey(t, 'globex');
      // 32 random bytes are 43 characters of base64url (or more in any other encoding).
      expect(first.apiKey.length).toBeGreaterThanOrEqual(43);
      expect(second.apiKey.length).toBeGreaterThanOrEqual(43);
      expect(first.apiKey).not.toBe(second.apiKey);
      expect(first.keyId).not.toBe(second.keyId);
    });

    it('stores only the SHA-256 hash of a created key, never the key itself', async () => {
      const { apiKey } = await createKey(t, 'globex');
      const used = await http(t.url + CATALOG, { headers: { key: apiKey } });
      expect(used.status).toBe(200);
      const bytes = await t.dump();
      const hash = createHash('sha256').update(apiKey, 'utf8').digest('hex');
      expect(bytes.includes(hash)).toBe(true);
      expect(bytes.includes(apiKey)).toBe(false);
      // Nor any long piece of it (the random part without a prefix).
      expect(bytes.includes(apiKey.slice(-32))).toBe(false);
    });
  });

  describe('the operator API', () => {
    it('accepts the configured bearer token', async () => {
      const r = await http(t.url + '/admin/crypto-pairs', { headers: adminHeaders });
      expect(r.status).toBe(200);
    });

    it('is never opened by a merchant key in the key header: 401 asking for the bearer token', async () => {
      const variants: Record<string, string>[] = [{ key: ACME_KEY }, { 'x-api-key': ACME_KEY }];
      for (const headers of variants) {
        const list = await http(t.url + '/admin/crypto-pairs', { headers });
        const errors = expectEnvelope(list, 401, 'UNAUTHORIZED');
        expect(errors[0].type).toBe('FATAL');
        const write = await http(t.url + '/admin/merchants/acme/api-keys', {
          method: 'POST',
          headers,
        });
        expectEnvelope(write, 401, 'UNAUTHORIZED');
      }
    });

    it('is never opened by a merchant key given as a bearer token: 401 invalid_token', async () => {
      const r = await http(t.url + '/admin/crypto-pairs', {
        headers: { authorization: `Bearer ${ACME_KEY}`, key: ACME_KEY },
      });
      const errors = expectEnvelope(r, 401, 'UNAUTHORIZED');
      expect(errors[0].type).toBe('FATAL');
      expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    });

    it('refuses a wrong bearer token with a 401 and the invalid_token challenge (RFC 6750)', async () => {
      for (const token of [`${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1), `op_${'z'.repeat(43)}`]) {
        const r = await http(t.url + '/admin/crypto-pairs', {
          headers: { authorization: `Bearer ${token}` },
        });
        expectEnvelope(r, 401, 'UNAUTHORIZED');
        expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      }
    });

    it('refuses a request without a bearer token with a 401 and a bare challenge', async () => {
      for (const headers of [{}, { authorization: 'Basic YWRtaW46YWRtaW4=' }] as Record<
        string,
        string
      >[]) {
        const r = await http(t.url + '/admin/crypto-pairs', { headers });
        const errors = expectEnvelope(r, 401, 'UNAUTHORIZED');
        expect(errors[0].field).toBe('authorization');
        expect(r.headers.get('www-authenticate')).toBe('Bearer');
      }
    });

    it('refuses two Authorization headers with a 400, even when both are right', async () => {
      const { status, headers, body } = await rawRequest(
        t.url,
        'GET /admin/crypto-pairs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n' +
          `Authorization: Bearer ${ADMIN_TOKEN}\r\n` +
          `Authorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`,
      );
      expect(status).toBe(400);
      expect(headers['www-authenticate']).toBe('Bearer error="invalid_request"');
      expect(JSON.parse(body)).toEqual({
        errors: [
          {
            type: 'VALIDATION',
            errorCode: 'INVALID_PARAMETER',
            message: 'must be given once: the request carries more than one Authorization header.',
            field: 'authorization',
          },
        ],
      });
    });
  });
});

describe('operator API without an ADMIN_TOKEN (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key', ADMIN_TOKEN: '' });
    await t.seed({ merchants: [{ id: 'acme', name: 'Acme', apiKeys: [ACME_KEY] }] });
  });
  afterAll(() => t.close());

  it.each([
    ['GET', '/admin/crypto-pairs'],
    ['POST', '/admin/crypto-pairs'],
    ['POST', '/admin/merchants'],
    ['POST', '/admin/merchants/acme/api-keys'],
    ['PUT', '/admin/payment-sessions/vk_any_0001'],
    ['GET', '/admin/payment-sessions/vk_any_0001/history'],
  ])('answers %s %s with 403 FORBIDDEN', async (method, path) => {
    const withToken = await http(t.url + path, {
      method,
      headers: adminHeaders,
      body: method === 'GET' ? undefined : {},
    });
    const errors = expectEnvelope(withToken, 403, 'FORBIDDEN');
    expect(errors[0].type).toBe('FATAL');
    const withoutToken = await http(t.url + path, {
      method,
      body: method === 'GET' ? undefined : {},
    });
    expectEnvelope(withoutToken, 403, 'FORBIDDEN');
    const empty = await http(t.url + path, {
      method,
      headers: { authorization: 'Bearer ' },
      body: method === 'GET' ? undefined : {},
    });
    expectEnvelope(empty, 403, 'FORBIDDEN');
  });

  it('still serves merchants with their keys', async () => {
    const r = await http(t.url + CATALOG, { headers: { key: ACME_KEY } });
    expect(r.status).toBe(200);
  });
});
