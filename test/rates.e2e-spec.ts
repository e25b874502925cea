import {
  adminHeaders,
  createOperator,
  expectEnvelope,
  http,
  startTestApp,
  TestApp,
} from './support/test-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The assets' rates: put by role catalog, listed with their age and staleness. */
describe('rates (e2e)', () => {
  let t: TestApp;

  const put = (code: string, body: unknown, headers: Record<string, string> = adminHeaders) =>
    http(`${t.url}/admin/rates/${code}`, { method: 'PUT', headers, body });
  const list = () => http(`${t.url}/admin/rates`, { headers: adminHeaders });

  beforeAll(async () => {
    t = await startTestApp({ RATE_MAX_AGE_SECONDS: '1' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('puts a rate and answers it with its age; codes are stored upper case', async () => {
    const r = await put('usdt', { fiat: 'eur', price: '0.9213' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      currencyCode: 'USDT',
      fiat: 'EUR',
      price: '0.9213',
      updatedAt: expect.any(String),
      ageSeconds: 0,
      stale: false,
    });
    expect((await list()).body.payload).toEqual([r.body]);
  });

  it.each([
    [{ fiat: 'EUR', price: '0' }, 'price'],
    [{ fiat: 'EUR', price: '-1' }, 'price'],
    [{ fiat: 'EUR', price: '1e3' }, 'price'],
    [{ fiat: 'EUR', price: '01.5' }, 'price'],
    [{ fiat: 'EUR', price: '1.' }, 'price'],
    [{ fiat: 'EUR', price: 0.92 }, 'price'],
    [{ fiat: 'EUR', price: `1.${'1'.repeat(19)}` }, 'price'],
    [{ fiat: 'E', price: '1' }, 'fiat'],
    [{ price: '1' }, 'fiat'],
  ])('refuses %j', async (body, field) => {
    const [error] = expectEnvelope(await put('BTC', body), 400, 'INVALID_PARAMETER');
    expect(error.field).toBe(field);
  });

  it('refuses an asset code that is not one', async () => {
    const [error] = expectEnvelope(
      await put('BT-C', { fiat: 'EUR', price: '1' }),
      400,
      'INVALID_PARAMETER',
    );
    expect(error.field).toBe('currencyCode');
  });

  it('calls a rate stale once RATE_MAX_AGE_SECONDS have passed, and fresh again once put', async () => {
    await put('BTC', { fiat: 'USD', price: '100000.5' });
    await sleep(2100);
    const stale = (await list()).body.payload.find(
      (r: { currencyCode: string }) => r.currencyCode === 'BTC',
    );
    expect(stale).toMatchObject({ price: '100000.5', stale: true });
    expect(stale.ageSeconds).toBeGreaterThanOrEqual(2);
    const again = await put('BTC', { fiat: 'USD', price: '100001' });
    expect(again.body).toMatchObject({ stale: false, ageSeconds: 0 });
  });

  it('lets role catalog put and viewer read, and audits the price change', async () => {
    const catalog = await createOperator(t, 'rate-feed', 'catalog');
    const payments = await createOperator(t, 'rate-payments', 'payments');
    const viewer = await createOperator(t, 'rate-viewer', 'viewer');
    const byFeed = await put(
      'ETH',
      { fiat: 'EUR', price: '3000' },
      {
        authorization: `Bearer ${catalog.token}`,
      },
    );
    expect(byFeed.status).toBe(200);
    await put(
      'ETH',
      { fiat: 'EUR', price: '3001.25' },
      { authorization: `Bearer ${catalog.token}` },
    );
    expectEnvelope(
      await put('ETH', { fiat: 'EUR', price: '1' }, { authorization: `Bearer ${payments.token}` }),
      403,
      'FORBIDDEN',
    );
    const read = await http(`${t.url}/admin/rates`, {
      headers: { authorization: `Bearer ${viewer.token}` },
    });
    expect(read.status).toBe(200);
    const events = await http(`${t.url}/admin/audit-events?target=ETH/EUR`, {
      headers: adminHeaders,
    });
    expect(events.body.payload.map((e: { changes: object }) => e.changes)).toEqual([
      { price: { old: '3000', new: '3001.25' } },
      { price: { old: null, new: '3000' } },
    ]);
    expect(events.body.payload[0].operator).toMatchObject({ name: 'rate-feed' });
  });
});
