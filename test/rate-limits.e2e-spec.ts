import { expectEnvelope, http, HttpResult, startTestApp, TestApp } from './support/test-app.js';

const CATALOG = '/api/crypto-currency-protocol-processors';
const STATUS = '/api/gateway/payment-status/';

const ACME_KEY = 'acme-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const GLOBEX_KEY = 'globex-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const INITECH_KEY = 'initech-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const UMBRELLA_KEY = 'umbrella-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const ACME_SESSION = 'vk_acme_pending_0001';
const GLOBEX_SESSION = 'vk_globex_pending_0001';

const seed = {
  merchants: [
    { id: 'acme', name: 'Acme', apiKeys: [ACME_KEY] },
    { id: 'globex', name: 'Globex', apiKeys: [GLOBEX_KEY] },
    { id: 'initech', name: 'Initech', apiKeys: [INITECH_KEY] },
    { id: 'umbrella', name: 'Umbrella', apiKeys: [UMBRELLA_KEY] },
  ],
  paymentSessions: [
    { validationKey: ACME_SESSION, merchantId: 'acme', status: 'PENDING' },
    { validationKey: GLOBEX_SESSION, merchantId: 'globex', status: 'PENDING' },
  ],
};

/** A 429 RATE_LIMITED envelope with a usable Retry-After (whole seconds, within the window). */
function expectRateLimited(r: HttpResult) {
  const errors = expectEnvelope(r, 429, 'RATE_LIMITED');
  expect(errors).toHaveLength(1);
  expect(errors[0].type).toBe('FATAL');
  const retryAfter = r.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

describe('rate limit on payment-status lookups that miss (e2e)', () => {
  let t: TestApp;
  const lookup = (key: string, validationKey: string) =>
    http(t.url + STATUS + validationKey, { headers: { key } });

  beforeAll(async () => {
    t = await startTestApp({
      AUTH_MODE: 'api-key',
      RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '3',
    });
    await t.seed(seed);
  });
  afterAll(() => t.close());

  it('blocks a merchant after 3 misses, then refuses even its own sessions; others are unaffected', async () => {
    // Found lookups do not count.
    for (let i = 0; i < 5; i++) {
      expect((await lookup(ACME_KEY, ACME_SESSION)).status).toBe(200);
    }
    for (let i = 1; i <= 3; i++) {
      expectEnvelope(await lookup(ACME_KEY, `vk_guess_${i}`), 404, 'TRANSACTION_FAILED');
    }
    expectRateLimited(await lookup(ACME_KEY, 'vk_guess_4'));

    // Blocked now: a 200 can no longer be told from a miss.
    expectRateLimited(await lookup(ACME_KEY, ACME_SESSION));
    expectRateLimited(await lookup(ACME_KEY, 'vk_guess_5'));

    // Another merchant's key has its own count.
    const other = await lookup(GLOBEX_KEY, GLOBEX_SESSION);
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ payload: [{ status: 'PENDING' }] });
    expectEnvelope(await lookup(GLOBEX_KEY, 'vk_guess_globex'), 404, 'TRANSACTION_FAILED');
  });

  it('counts lookups of another merchant’s sessions as misses too', async () => {
    expectEnvelope(await lookup(INITECH_KEY, GLOBEX_SESSION), 404, 'TRANSACTION_FAILED');
    expectEnvelope(await lookup(INITECH_KEY, ACME_SESSION), 404, 'TRANSACTION_FAILED');
    expectEnvelope(await lookup(INITECH_KEY, GLOBEX_SESSION), 404, 'TRANSACTION_FAILED');
    expectRateLimited(await lookup(INITECH_KEY, ACME_SESSION));
  });

  it('counts lookups of impossible (over 255 characters) keys as misses too', async () => {
    for (let i = 1; i <= 3; i++) {
      expectEnvelope(await lookup(UMBRELLA_KEY, String(i).repeat(300)), 404, 'TRANSACTION_FAILED');
    }
    expectRateLimited(await lookup(UMBRELLA_KEY, 'vk_guess_umbrella'));
  });
});

describe('general rate limit per API key and per address (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key', RATE_LIMIT_PER_MINUTE: '5' });
    await t.seed(seed);
  });
  afterAll(() => t.close());

  it('answers the 6th catalog request of a key with 429 and Retry-After', async () => {
    for (let i = 1; i <= 5; i++) {
      const r = await http(t.url + CATALOG, { headers: { key: ACME_KEY } });
      expect(r.status).toBe(200);
    }
    expectRateLimited(await http(t.url + CATALOG, { headers: { key: ACME_KEY } }));
    // The singular alias is the same route.
    expectRateLimited(
      await http(t.url + '/api/crypto-currency-protocol-processor', { headers: { key: ACME_KEY } }),
    );

    // Another key is counted on its own.
    const other = await http(t.url + CATALOG, { headers: { key: INITECH_KEY } });
    expect(other.status).toBe(200);
  });

  it('counts a key once across routes: after 5 catalog requests its status lookup is 429 too', async () => {
    for (let i = 1; i <= 5; i++) {
      const r = await http(t.url + CATALOG, { headers: { key: GLOBEX_KEY } });
      expect(r.status).toBe(200);
    }
    // RATE_LIMIT_PER_MINUTE is the budget of the key (or address), not of each route.
    expectRateLimited(
      await http(t.url + STATUS + GLOBEX_SESSION, { headers: { key: GLOBEX_KEY } }),
    );
  });

  it('limits callers without a valid key per address: 401 until the limit, then 429', async () => {
    for (let i = 1; i <= 5; i++) {
      const r = await http(t.url + CATALOG, {
        headers: { key: `guessed-key-${i}-0123456789-abcdefghijklmnopqrstuvwxyz` },
      });
      expectEnvelope(r, 401, 'UNAUTHORIZED');
    }
    expectRateLimited(
      await http(t.url + CATALOG, {
        headers: { key: 'guessed-key-6-0123456789-abcdefghijklmnopqrstuvwxyz' },
      }),
    );
    // Without any key, from the same address: limited as well.
    expectRateLimited(await http(t.url + CATALOG));

    // A valid key is counted on its own, not against the address.
    const valid = await http(t.url + CATALOG, { headers: { key: INITECH_KEY } });
    expect(valid.status).toBe(200);
  });

  it('never limits the health routes', async () => {
    for (let i = 0; i < 8; i++) {
      expect((await http(t.url + '/health/live')).status).toBe(200);
    }
  });
});
