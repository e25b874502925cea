import { expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';

const CATALOG = '/api/crypto-currency-protocol-processors';

function pair(currencyCode: string, protocol: string, countryCode: string, enabled = true) {
  return { currencyCode, currencyName: `${currencyCode} coin`, protocol, countryCode, enabled };
}

describe('catalog (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.seed({
      cryptoPairs: [
        pair('USDT', 'TRC20', 'IE'),
        pair('USDT', 'ERC20', 'IE'),
        pair('USDT', 'TRC20', 'DE'),
        pair('USDC', 'ERC20', 'IE'),
        pair('USDC', 'POLYGON', 'FR'),
        pair('USDT', 'BEP20', 'IE', false),
        pair('BTC', 'BITCOIN', 'NL'),
        pair('USDT', 'SOL_NET-2', 'ES'),
      ],
    });
  });
  afterAll(() => t.close());

  it('lists enabled pairs with the default page, ordered by currency, protocol, country', async () => {
    const r = await http(t.url + CATALOG);
    expect(r.status).toBe(200);
    expect(r.body.page).toEqual({ size: 10, page: 0, total: 7 });
    expect(
      r.body.payload.map(
        (p: Record<string, string>) => `${p.currencyCode}/${p.protocol}/${p.countryCode}`,
      ),
    ).toEqual([
      'BTC/BITCOIN/NL',
      'USDC/ERC20/IE',
      'USDC/POLYGON/FR',
      'USDT/ERC20/IE',
      'USDT/SOL_NET-2/ES',
      'USDT/TRC20/DE',
      'USDT/TRC20/IE',
    ]);
    expect(Object.keys(r.body.payload[0]).sort()).toEqual([
      'countryCode',
      'currencyCode',
      'currencyName',
      'protocol',
    ]);
    expect(
      r.body.payload.find((p: { protocol: string }) => p.protocol === 'BEP20'),
    ).toBeUndefined();
  });

  it('serves the singular alias with the same answer', async () => {
    const [plural, singular] = await Promise.all([
      http(t.url + CATALOG + '?countryCode=IE'),
      http(t.url + '/api/crypto-currency-protocol-processor?countryCode=IE'),
    ]);
    expect(singular.status).toBe(200);
    expect(singular.text).toBe(plural.text);
  });

  it('filters case-insensitively and normalises codes to upper case', async () => {
    const r = await http(t.url + CATALOG + '?countryCode=ie&currencyCode=usdt&protocol=trc20');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      payload: [
        { currencyCode: 'USDT', currencyName: 'USDT coin', protocol: 'TRC20', countryCode: 'IE' },
      ],
      page: { size: 10, page: 0, total: 1 },
    });
    const byCountry = await http(t.url + CATALOG + '?countryCode=Ie');
    expect(byCountry.body.page.total).toBe(3);
    const byProtocol = await http(t.url + CATALOG + '?protocol=sol_net-2');
    expect(byProtocol.body.payload).toHaveLength(1);
  });

  it('pages in a stable order; total counts records, not pages', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 4; page++) {
      const r = await http(t.url + CATALOG + `?size=2&page=${page}`);
      expect(r.status).toBe(200);
      expect(r.body.page).toEqual({ size: 2, page, total: 7 });
      seen.push(
        ...r.body.payload.map(
          (p: Record<string, string>) => `${p.currencyCode}/${p.protocol}/${p.countryCode}`,
        ),
      );
    }
    const all = await http(t.url + CATALOG + '?size=100');
    expect(seen).toEqual(
      all.body.payload.map(
        (p: Record<string, string>) => `${p.currencyCode}/${p.protocol}/${p.countryCode}`,
      ),
    );
  });

  it('answers a page past the end with an empty payload and the true total', async () => {
    const r = await http(t.url + CATALOG + '?page=1000000&size=100');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ payload: [], page: { size: 100, page: 1000000, total: 7 } });
  });

  it('ignores unknown query parameters', async () => {
    const r = await http(t.url + CATALOG + '?foo=bar&countryCode=DE&foo=baz');
    expect(r.status).toBe(200);
    expect(r.body.page.total).toBe(1);
  });

  it.each([
    ['countryCode=IRL', 'countryCode'],
    ['countryCode=I1', 'countryCode'],
    ['countryCode=', 'countryCode'],
    ['currencyCode=US-DT', 'currencyCode'],
    ['currencyCode=' + 'A'.repeat(17), 'currencyCode'],
    ['protocol=TRC 20', 'protocol'],
    ['protocol=' + 'P'.repeat(33), 'protocol'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['page=abc', 'page'],
    ['page=1000001', 'page'],
    ['page=', 'page'],
    ['size=0', 'size'],
    ['size=101', 'size'],
    ['size=1e1', 'size'],
    ['page=1&page=2', 'page'],
    ['countryCode=IE&countryCode=DE', 'countryCode'],
  ])('refuses %s with a 400 naming the field', async (query, field) => {
    const r = await http(t.url + CATALOG + '?' + query);
    const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(errors).toEqual([expect.objectContaining({ type: 'VALIDATION', field })]);
  });

  it.each([
    ['countryCode', 'ıe', 'must be two letters A-Z'],
    ['countryCode', 'ıE', 'must be two letters A-Z'],
    ['currencyCode', 'uſdt', 'must be 1 to 16 letters or digits'],
    ['currencyCode', 'uﬀ', 'must be 1 to 16 letters or digits'],
    ['protocol', 'ſol_net-2', 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -'],
  ])(
    'refuses %s=%j (a letter that upper-cases into ASCII) with a 400 naming the field',
    async (field, value, message) => {
      for (const path of [CATALOG, '/api/crypto-currency-protocol-processor']) {
        const r = await http(`${t.url}${path}?${field}=${encodeURIComponent(value)}`);
        const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
        expect(errors).toEqual([
          { type: 'VALIDATION', errorCode: 'INVALID_PARAMETER', message, field },
        ]);
      }
    },
  );

  it('reports one error per bad field', async () => {
    const r = await http(t.url + CATALOG + '?countryCode=X&size=0&page=-1&protocol=%20');
    const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(errors.map((e) => e.field).sort()).toEqual(['countryCode', 'page', 'protocol', 'size']);
  });

  it('says that a repeated parameter must be given once', async () => {
    const r = await http(t.url + CATALOG + '?size=5&size=5');
    expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')[0].message).toBe('must be given only once');
  });

  it('shows a seed run at once, despite the cache', async () => {
    const before = await http(t.url + CATALOG + '?countryCode=PT');
    expect(before.body.page.total).toBe(0);
    await t.seed({
      cryptoPairs: [pair('USDT', 'TRC20', 'PT'), pair('USDT', 'TRC20', 'IE', false)],
    });
    const after = await http(t.url + CATALOG + '?countryCode=PT');
    expect(after.body.page.total).toBe(1);
    const ie = await http(t.url + CATALOG + '?countryCode=IE&protocol=TRC20');
    expect(ie.body.page.total).toBe(0);
  });

  it('tags answers with a strong ETag and answers a matching If-None-Match with 304', async () => {
    const first = await http(t.url + CATALOG + '?countryCode=DE');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, max-age=60');
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);

    const again = await http(t.url + CATALOG + '?countryCode=de', {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, max-age=60');
    // No body, so nothing describes one (RFC 9110: a 304 has no content), on either platform.
    expect([again.headers.get('content-type'), again.headers.get('content-length')]).toEqual([
      null,
      null,
    ]);

    // A HEAD's 304 may give the 200's length (Fastify does), never another (RFC 9110: Content-Length is the length the 200 would have).
    const head = await http(t.url + CATALOG + '?countryCode=DE', {
      method: 'HEAD',
      headers: { 'if-none-match': etag! },
    });
    expect(head.status).toBe(304);
    expect([null, first.headers.get('content-length')]).toContain(
      head.headers.get('content-length'),
    );
    expect([null, first.headers.get('content-type')]).toContain(head.headers.get('content-type'));

    const inList = await http(t.url + CATALOG + '?countryCode=DE', {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(inList.status).toBe(304);

    const otherQuery = await http(t.url + CATALOG + '?countryCode=IE', {
      headers: { 'if-none-match': etag! },
    });
    expect(otherQuery.status).toBe(200);
    expect(otherQuery.headers.get('etag')).not.toBe(etag);
  });

  it('changes the ETag when the catalog changes', async () => {
    const before = await http(t.url + CATALOG + '?countryCode=NL');
    const etag = before.headers.get('etag')!;
    await t.seed({ cryptoPairs: [pair('USDC', 'SOLANA', 'MX')] });
    const after = await http(t.url + CATALOG + '?countryCode=NL', {
      headers: { 'if-none-match': etag },
    });
    expect(after.status).toBe(200);
    expect(after.text).toBe(before.text);
    expect(after.headers.get('etag')).not.toBe(etag);
  });
});
