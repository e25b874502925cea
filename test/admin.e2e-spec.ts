import {
  adminHeaders,
  expectEnvelope,
  http,
  startTestApp,
  successfulResponse,
  TestApp,
} from './support/test-app.js';

const CATALOG = '/api/crypto-currency-protocol-processors';
const PAIRS = '/admin/crypto-pairs';

interface StoredPair {
  id: number;
  currencyCode: string;
  currencyName: string;
  protocol: string;
  countryCode: string;
  enabled: boolean;
}

function pair(
  currencyCode: string,
  protocol: string,
  countryCode: string,
  extra: Record<string, unknown> = {},
) {
  return { currencyCode, currencyName: `${currencyCode} coin`, protocol, countryCode, ...extra };
}

function triples(payload: { currencyCode: string; protocol: string; countryCode: string }[]) {
  return payload.map((p) => `${p.currencyCode}/${p.protocol}/${p.countryCode}`);
}

describe('operator API (e2e)', () => {
  let t: TestApp;

  const admin = (path: string, init: { method?: string; body?: unknown; rawBody?: string } = {}) =>
    http(t.url + path, {
      ...init,
      headers: {
        ...adminHeaders,
        ...(init.rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
      },
    });

  async function createPair(body: Record<string, unknown>): Promise<StoredPair> {
    const r = await admin(PAIRS, { method: 'POST', body });
    expect(r.status).toBe(201);
    return r.body as StoredPair;
  }

  beforeAll(async () => {
    t = await startTestApp();
    await t.seed({
      cryptoPairs: [
        { ...pair('USDT', 'TRC20', 'IE'), enabled: true },
        { ...pair('USDT', 'BEP20', 'IE'), enabled: false },
        { ...pair('BTC', 'BITCOIN', 'NL'), enabled: true },
      ],
    });
  });
  afterAll(() => t.close());

  describe('catalog CRUD', () => {
    it('lists every pair, disabled ones included, with page and total', async () => {
      const r = await admin(`${PAIRS}?countryCode=IE`);
      expect(r.status).toBe(200);
      expect(r.body.page).toEqual({ size: 10, page: 0, total: 2 });
      expect(triples(r.body.payload)).toEqual(['USDT/BEP20/IE', 'USDT/TRC20/IE']);
      const disabled = r.body.payload.find((p: StoredPair) => p.protocol === 'BEP20');
      expect(disabled).toEqual({
        id: expect.any(Number),
        currencyCode: 'USDT',
        currencyName: 'USDT coin',
        protocol: 'BEP20',
        countryCode: 'IE',
        enabled: false,
      });
      // The public catalog shows only the enabled one.
      const pub = await http(`${t.url}${CATALOG}?countryCode=IE`);
      expect(triples(pub.body.payload)).toEqual(['USDT/TRC20/IE']);
    });

    it('pages the operator list like the public catalog', async () => {
      const first = await admin(`${PAIRS}?size=1&page=0`);
      const second = await admin(`${PAIRS}?size=1&page=1`);
      expect(first.status).toBe(200);
      expect(first.body.page.size).toBe(1);
      expect(first.body.payload).toHaveLength(1);
      expect(second.body.page).toEqual({ size: 1, page: 1, total: first.body.page.total });
      expect(first.body.page.total).toBeGreaterThanOrEqual(3);
      expect(first.body.payload[0].id).not.toBe(second.body.payload[0].id);
      const bad = await admin(`${PAIRS}?size=0`);
      expect(expectEnvelope(bad, 400, 'INVALID_PARAMETER')).toEqual([
        expect.objectContaining({ field: 'size' }),
      ]);
    });

    it('creates a pair with 201, normalising codes; it appears in the public catalog at once', async () => {
      const before = await http(`${t.url}${CATALOG}?countryCode=PT`);
      expect(before.body.page.total).toBe(0);

      const r = await admin(PAIRS, {
        method: 'POST',
        body: {
          currencyCode: 'usdc',
          currencyName: ' USD Coin ',
          protocol: 'erc20',
          countryCode: 'pt',
        },
      });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(Number),
        currencyCode: 'USDC',
        currencyName: 'USD Coin',
        protocol: 'ERC20',
        countryCode: 'PT',
        enabled: true,
      });

      const after = await http(`${t.url}${CATALOG}?countryCode=PT`);
      expect(after.status).toBe(200);
      expect(after.body).toEqual({
        payload: [
          { currencyCode: 'USDC', currencyName: 'USD Coin', protocol: 'ERC20', countryCode: 'PT' },
        ],
        page: { size: 10, page: 0, total: 1 },
      });
    });

    it('refuses a duplicate triple with a 409 CONFLICT', async () => {
      await createPair(pair('USDT', 'TRC20', 'FR'));
      const r = await admin(PAIRS, { method: 'POST', body: pair('USDT', 'TRC20', 'FR') });
      const errors = expectEnvelope(r, 409, 'CONFLICT');
      expect(errors[0].type).toBe('FATAL');
    });

    it('refuses a duplicate that differs only in case with a 409 CONFLICT', async () => {
      const r = await admin(PAIRS, {
        method: 'POST',
        body: { currencyCode: 'usdt', currencyName: 'again', protocol: 'trc20', countryCode: 'ie' },
      });
      expectEnvelope(r, 409, 'CONFLICT');
      const list = await admin(`${PAIRS}?countryCode=IE&protocol=TRC20&currencyCode=USDT`);
      expect(list.body.page.total).toBe(1);
      expect(list.body.payload[0].currencyName).toBe('USDT coin');
    });

    it('patches currencyName and enabled; the public catalog follows at once', async () => {
      const created = await createPair(pair('DAI', 'ERC20', 'ES'));
      const read1 = await http(`${t.url}${CATALOG}?countryCode=ES`);
      expect(read1.body.payload).toEqual([
        { currencyCode: 'DAI', currencyName: 'DAI coin', protocol: 'ERC20', countryCode: 'ES' },
      ]);

      const renamed = await admin(`${PAIRS}/${created.id}`, {
        method: 'PATCH',
        body: { currencyName: 'Dai Stablecoin' },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...created, currencyName: 'Dai Stablecoin' });
      const read2 = await http(`${t.url}${CATALOG}?countryCode=ES`);
      expect(read2.body.payload).toEqual([
        {
          currencyCode: 'DAI',
          currencyName: 'Dai Stablecoin',
          protocol: 'ERC20',
          countryCode: 'ES',
        },
      ]);

      const disabled = await admin(`${PAIRS}/${created.id}`, {
        method: 'PATCH',
        body: { enabled: false },
      });
      expect(disabled.status).toBe(200);
      expect(disabled.body.enabled).toBe(false);
      expect(disabled.body.currencyName).toBe('Dai Stablecoin');
      const read3 = await http(`${t.url}${CATALOG}?countryCode=ES`);
      expect(read3.body).toEqual({ payload: [], page: { size: 10, page: 0, total: 0 } });
      // Still listed for the operator.
      const operator = await admin(`${PAIRS}?countryCode=ES`);
      expect(operator.body.payload).toEqual([disabled.body]);

      const enabled = await admin(`${PAIRS}/${created.id}`, {
        method: 'PATCH',
        body: { enabled: true },
      });
      expect(enabled.status).toBe(200);
      const read4 = await http(`${t.url}${CATALOG}?countryCode=ES`);
      expect(read4.body.page.total).toBe(1);
    });

    it('refuses a bad patch field by field', async () => {
      const created = await createPair(pair('EURC', 'SOLANA', 'IT'));
      const r = await admin(`${PAIRS}/${created.id}`, {
        method: 'PATCH',
        body: { currencyName: '', enabled: 'yes' },
      });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual(['currencyName', 'enabled']);
      const list = await admin(`${PAIRS}?countryCode=IT`);
      expect(list.body.payload).toEqual([created]);
    });

    it('refuses null in a patch or a new pair field by field, never a 500', async () => {
      const created = await createPair(pair('EURC', 'SOLANA', 'PT'));
      const patched = await admin(`${PAIRS}/${created.id}`, {
        method: 'PATCH',
        body: { currencyName: null, enabled: null },
      });
      const errors = expectEnvelope(patched, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual(['currencyName', 'enabled']);
      const made = await admin(PAIRS, {
        method: 'POST',
        body: { ...pair('EURC', 'SOLANA', 'GR'), enabled: null },
      });
      expect(expectEnvelope(made, 400, 'INVALID_PARAMETER').map((e) => e.field)).toEqual([
        'enabled',
      ]);
      const list = await admin(`${PAIRS}?countryCode=PT&size=100`);
      expect(list.body.payload.find((p: { id: number }) => p.id === created.id)).toEqual(created);
      const greek = await admin(`${PAIRS}?countryCode=GR&size=100`);
      expect(triples(greek.body.payload)).not.toContain('EURC/SOLANA/GR');
    });

    it('patching an unknown id is a 404 NOT_FOUND', async () => {
      const r = await admin(`${PAIRS}/999999`, { method: 'PATCH', body: { enabled: false } });
      expectEnvelope(r, 404, 'NOT_FOUND');
    });

    it('deletes with 204, then answers 404 NOT_FOUND; the public catalog follows at once', async () => {
      const created = await createPair(pair('XRP', 'XRPL', 'BE'));
      const read1 = await http(`${t.url}${CATALOG}?countryCode=BE`);
      expect(read1.body.page.total).toBe(1);

      const removed = await admin(`${PAIRS}/${created.id}`, { method: 'DELETE' });
      expect(removed.status).toBe(204);
      expect(removed.text).toBe('');

      const read2 = await http(`${t.url}${CATALOG}?countryCode=BE`);
      expect(read2.body).toEqual({ payload: [], page: { size: 10, page: 0, total: 0 } });
      const operator = await admin(`${PAIRS}?countryCode=BE`);
      expect(operator.body.page.total).toBe(0);

      const again = await admin(`${PAIRS}/${created.id}`, { method: 'DELETE' });
      const errors = expectEnvelope(again, 404, 'NOT_FOUND');
      expect(errors[0].type).toBe('FATAL');
      const patch = await admin(`${PAIRS}/${created.id}`, {
        method: 'PATCH',
        body: { enabled: true },
      });
      expectEnvelope(patch, 404, 'NOT_FOUND');
    });

    it('a deleted triple can be created again', async () => {
      const created = await createPair(pair('LTC', 'LITECOIN', 'AT'));
      expect((await admin(`${PAIRS}/${created.id}`, { method: 'DELETE' })).status).toBe(204);
      const again = await createPair(pair('LTC', 'LITECOIN', 'AT'));
      expect(again.id).not.toBe(created.id);
    });

    it.each([
      ['PATCH', 'abc'],
      ['DELETE', 'abc'],
      ['PATCH', '0'],
      ['DELETE', '-1'],
      ['DELETE', '1.5'],
    ])('refuses %s with id %s with a 400 naming the field id', async (method, id) => {
      const r = await admin(`${PAIRS}/${id}`, {
        method,
        body: method === 'PATCH' ? { enabled: false } : undefined,
      });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors).toEqual([expect.objectContaining({ type: 'VALIDATION', field: 'id' })]);
    });
  });

  describe('body validation', () => {
    it('reports one error per bad field, each naming its field', async () => {
      const r = await admin(PAIRS, {
        method: 'POST',
        body: { currencyCode: 'US-DT', currencyName: '', protocol: 'TRC 20', countryCode: 'IRL' },
      });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual([
        'countryCode',
        'currencyCode',
        'currencyName',
        'protocol',
      ]);
      for (const error of errors) expect(error.type).toBe('VALIDATION');
    });

    it('names missing required fields', async () => {
      const r = await admin(PAIRS, { method: 'POST', body: {} });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual([
        'countryCode',
        'currencyCode',
        'currencyName',
        'protocol',
      ]);
    });

    it('names nested fields by their dotted path', async () => {
      await t.seed({ merchants: [{ id: 'nested', name: 'Nested' }] });
      const r = await admin('/admin/payment-sessions/vk_admin_nested_0001', {
        method: 'PUT',
        body: {
          merchantId: 'nested',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse({
            money: { amount: 1.234, currency: 'EUR' },
            sourceMoney: { amount: 150, currency: 'E' },
            senderEmailAddress: 'not-an-email',
          }),
        },
      });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual([
        'paymentResponse.money.amount',
        'paymentResponse.senderEmailAddress',
        'paymentResponse.sourceMoney.currency',
      ]);
    });

    it.each([
      ['{"currencyCode": "USDT",', 'truncated'],
      ["{'currencyCode': 'USDT'}", 'single quotes'],
      ['not json at all', 'plain text'],
    ])('refuses a malformed JSON body (%s: %s) with 400 MALFORMED_REQUEST', async (rawBody) => {
      const r = await admin(PAIRS, { method: 'POST', rawBody });
      const errors = expectEnvelope(r, 400, 'MALFORMED_REQUEST');
      expect(errors).toHaveLength(1);
      expect(errors[0].type).toBe('VALIDATION');
      expect(r.text).not.toMatch(/SyntaxError|at .*\.js|node_modules/);
    });

    it('refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
      const rawBody = JSON.stringify({
        ...pair('BIG', 'TRC20', 'IE'),
        currencyName: 'x'.repeat(1024 * 1024 + 16),
      });
      const r = await admin(PAIRS, { method: 'POST', rawBody });
      const errors = expectEnvelope(r, 413, 'PAYLOAD_TOO_LARGE');
      expect(errors[0].type).toBe('VALIDATION');
      const list = await admin(`${PAIRS}?currencyCode=BIG`);
      expect(list.body.page.total).toBe(0);
    });

    it('accepts a body just under 1 MiB as far as size goes (then validates it)', async () => {
      const rawBody = JSON.stringify({
        ...pair('BIG', 'TRC20', 'IE'),
        currencyName: 'x'.repeat(1000 * 1000),
      });
      const r = await admin(PAIRS, { method: 'POST', rawBody });
      expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
        expect.objectContaining({ field: 'currencyName' }),
      ]);
    });
  });

  describe('codes are ASCII only', () => {
    it('refuses ſol/ſpl/ıt in a new pair with one 400 entry per field, and stores nothing', async () => {
      const before = await admin(`${PAIRS}?size=100`);
      const r = await admin(PAIRS, {
        method: 'POST',
        body: { currencyCode: 'ſol', currencyName: 'Solana', protocol: 'ſpl', countryCode: 'ıt' },
      });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors).toEqual([
        expect.objectContaining({
          field: 'currencyCode',
          message: 'must be 1 to 16 letters or digits',
        }),
        expect.objectContaining({
          field: 'protocol',
          message: 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -',
        }),
        expect.objectContaining({ field: 'countryCode', message: 'must be two letters A-Z' }),
      ]);
      const after = await admin(`${PAIRS}?size=100`);
      expect(after.body).toEqual(before.body);
      const sol = await admin(`${PAIRS}?currencyCode=SOL&protocol=SPL&countryCode=IT`);
      expect(sol.body.page.total).toBe(0);
    });

    it.each([
      ['countryCode', 'ıe'],
      ['currencyCode', 'uſdt'],
      ['protocol', 'ſpl'],
    ])('refuses %s=%j in the operator list with a 400 naming the field', async (field, value) => {
      const r = await admin(`${PAIRS}?${field}=${encodeURIComponent(value)}`);
      expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
        expect.objectContaining({ type: 'VALIDATION', field }),
      ]);
    });

    it('refuses a payment response whose currency or customerCountryCode is not ASCII', async () => {
      await t.seed({ merchants: [{ id: 'ascii', name: 'Ascii' }] });
      const key = 'vk_admin_ascii_codes_0001';
      const r = await admin(`/admin/payment-sessions/${key}`, {
        method: 'PUT',
        body: {
          merchantId: 'ascii',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse({
            destinationMoney: { amount: 161.37, currency: 'uſdt' },
            customerCountryCode: 'ıe',
          }),
        },
      });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual([
        'paymentResponse.customerCountryCode',
        'paymentResponse.destinationMoney.currency',
      ]);
      expectEnvelope(await admin(`/admin/payment-sessions/${key}/history`), 404, 'NOT_FOUND');
    });
  });

  describe('merchants', () => {
    it('creates a merchant with 201 and refuses the same id again with 409 CONFLICT', async () => {
      const r = await admin('/admin/merchants', {
        method: 'POST',
        body: { id: 'acme', name: 'Acme Payments Ltd' },
      });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: 'acme',
        name: 'Acme Payments Ltd',
        checkoutOrigins: [],
        callbackSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });

      const again = await admin('/admin/merchants', {
        method: 'POST',
        body: { id: 'acme', name: 'Another Acme' },
      });
      const errors = expectEnvelope(again, 409, 'CONFLICT');
      expect(errors[0].type).toBe('FATAL');
    });

    it('a created merchant can own payment sessions', async () => {
      const created = await admin('/admin/merchants', {
        method: 'POST',
        body: { id: 'initech', name: 'Initech' },
      });
      expect(created.status).toBe(201);
      const session = await admin('/admin/payment-sessions/vk_initech_0001', {
        method: 'PUT',
        body: { merchantId: 'initech', status: 'PENDING' },
      });
      expect(session.status).toBe(201);
    });

    it('validates a new merchant field by field', async () => {
      const r = await admin('/admin/merchants', {
        method: 'POST',
        body: { id: '-bad id-', name: '' },
      });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual(['id', 'name']);
    });
  });
});
