import {
  adminHeaders,
  expectEnvelope,
  http,
  startTestApp,
  successfulResponse,
  TestApp,
  TEST_DIALECT,
} from './support/test-app.js';

const CATALOG = '/api/crypto-currency-protocol-processors';
const STATUS = '/api/gateway/payment-status/';

/** The value of the sample with exactly this name and these labels; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}) {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').match(/\w+="(?:[^"\\]|\\.)*"/g) ?? [];
    if ([...have].sort().join(',') === wanted) return Number(match[3]);
  }
  return undefined;
}

describe('metrics (e2e)', () => {
  let t: TestApp;

  const scrape = async () => {
    const r = await http(t.url + '/metrics', { headers: adminHeaders });
    expect(r.status).toBe(200);
    return r.text;
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.seed({
      cryptoPairs: [
        { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
      ],
      merchants: [{ id: 'm1', name: 'Merchant one' }],
      paymentSessions: [
        {
          validationKey: 'vk-metrics-final',
          merchantId: 'm1',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse(),
        },
      ],
    });
  });
  afterAll(() => t.close());

  it('refuses a request without a bearer token (401)', async () => {
    const r = await http(t.url + '/metrics');
    expectEnvelope(r, 401, 'UNAUTHORIZED');
    expect(r.text).not.toContain('http_request');
  });

  it('refuses a wrong bearer token (401, invalid_token)', async () => {
    const r = await http(t.url + '/metrics', {
      headers: { authorization: 'Bearer not-the-admin-token-0123456789abcdef' },
    });
    expectEnvelope(r, 401, 'UNAUTHORIZED');
    expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('refuses a merchant API key (401)', async () => {
    const r = await http(t.url + '/metrics', { headers: { key: 'a'.repeat(43) } });
    expectEnvelope(r, 401, 'UNAUTHORIZED');
  });

  it('answers the operator in the Prometheus text format', async () => {
    const r = await http(t.url + '/metrics', { headers: adminHeaders });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8$/);
    expect(r.text).toContain('# TYPE http_requests_total counter');
    expect(r.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(sample(r.text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(
      sample(r.text, 'rate_limit_refusals_total', { limit: 'general' }),
    ).toBeGreaterThanOrEqual(0);
  });

  it('counts a repeated catalog query as a cache miss, then a hit', async () => {
    const lookups = (text: string, result: string) =>
      sample(text, 'cache_lookups_total', { cache: 'catalog', result }) ?? NaN;
    const before = await scrape();
    const query = `${CATALOG}?countryCode=IE&size=7`;
    expect((await http(t.url + query)).status).toBe(200);
    expect((await http(t.url + query)).status).toBe(200);
    const after = await scrape();
    expect(lookups(after, 'miss') - lookups(before, 'miss')).toBe(1);
    expect(lookups(after, 'hit') - lookups(before, 'hit')).toBeGreaterThanOrEqual(1);
  });

  it('counts the kept answer of a final payment session as a hit', async () => {
    const hits = (text: string) =>
      sample(text, 'cache_lookups_total', { cache: 'final_status', result: 'hit' }) ?? NaN;
    const before = await scrape();
    expect((await http(t.url + STATUS + 'vk-metrics-final')).status).toBe(200);
    expect((await http(t.url + STATUS + 'vk-metrics-final')).status).toBe(200);
    expect(hits(await scrape()) - hits(before)).toBeGreaterThanOrEqual(1);
  });

  it('reports the database connections', async () => {
    const text = await scrape();
    const total = sample(text, 'db_pool_connections', { state: 'total' });
    if (TEST_DIALECT === 'sqlite') {
      // SQLite: the one shared connection.
      expect(total).toBe(1);
    } else {
      expect(total).toBeGreaterThanOrEqual(1);
      expect(total).toBeLessThanOrEqual(t.config.databasePoolSize);
      expect(sample(text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('metrics under CONTEXT_PATH, and without ADMIN_TOKEN (e2e)', () => {
  let prefixed: TestApp;
  let closed: TestApp;

  beforeAll(async () => {
    prefixed = await startTestApp({ CONTEXT_PATH: '/pegasus-ci' });
    closed = await startTestApp({ ADMIN_TOKEN: '' });
  });
  afterAll(async () => {
    await prefixed.close();
    await closed.close();
  });

  it('serves /metrics under the prefix, to the operator only', async () => {
    expect(prefixed.url).toMatch(/\/pegasus-ci$/);
    const ok = await http(prefixed.url + '/metrics', { headers: adminHeaders });
    expect(ok.status).toBe(200);
    expect(sample(ok.text, 'db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expectEnvelope(await http(prefixed.url + '/metrics'), 401, 'UNAUTHORIZED');
  });

  it('is closed (403) when no ADMIN_TOKEN is configured, whatever the bearer', async () => {
    expectEnvelope(
      await http(closed.url + '/metrics', { headers: adminHeaders }),
      403,
      'FORBIDDEN',
    );
  });
});
