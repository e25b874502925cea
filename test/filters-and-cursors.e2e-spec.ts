import {
  adminHeaders,
  expectEnvelope,
  http,
  startTestApp,
  TEST_DIALECT,
  TestApp,
} from './support/test-app.js';

/**
 * Every filter, page and cursor of every list, with values a database may take otherwise than
 * the rules mean (a NUL PostgreSQL refuses in text, numbers past the range of its columns, a
 * cursor that decodes to something no page wrote): each is the same 400 on SQLite and PostgreSQL,
 * naming the parameter, never a 500.
 */

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const rawCursor = (text: string) => Buffer.from(text).toString('base64url');

/** Text that no text filter takes: control characters, NUL first. */
const CONTROL_TEXT = ['%00', 'a%00b', '%00%00%00', '%01', 'a%0Ab', '%7F', '%C2%85', '%1B%5B0m'];
/** What no page or size is. */
const NOT_A_COUNT = ['1.5', '1e400', '-1', '%00', '99999999999999999999', '0x10', ' 1', ''];

const CURSORS: [string, string][] = [
  ['[1.5,"x"]', cursorOf([1.5, 'x'])],
  ['[1e400,"x"]', rawCursor('[1e400,"x"]')],
  ['[1e300,"x"]', cursorOf([1e300, 'x'])],
  ['[-1,"x"]', cursorOf([-1, 'x'])],
  ['a time past what a Date holds', cursorOf([8.64e15 + 1, 'x'])],
  ['an integer past 2^53', rawCursor('[9007199254740993,"x"]')],
  ['a time given as text', cursorOf(['1700000000000', 'x'])],
  ['a key with a NUL', cursorOf([1, 'x\u0000y'])],
  ['an empty key', cursorOf([1, ''])],
  ['a key with a slash', cursorOf([1, 'a/b'])],
  ['a key of 256 characters', cursorOf([1, 'k'.repeat(256)])],
  ['three members', cursorOf([1, 'x', 3])],
  ['an object', cursorOf({ createdAtMs: 1, validationKey: 'x' })],
  ['null', cursorOf(null)],
  ['not JSON', rawCursor('[1,"x"')],
  ['not base64url', 'not+base64/url'],
];

/** Cursors of the lists that page by a row's id: what no page of theirs wrote. */
const ID_CURSORS = [
  cursorOf({ id: 1.5 }),
  rawCursor('{"id":1e400}'),
  cursorOf({ id: -1 }),
  cursorOf({ id: 2147483648 }),
  cursorOf({ id: Number.MAX_SAFE_INTEGER }),
  rawCursor('{"id":9007199254740993}'),
  cursorOf({ id: '1' }),
  cursorOf({ id: null }),
  cursorOf([1]),
  cursorOf(null),
  rawCursor('{"id":1'),
  'not+base64/url',
  '%00',
];

/** A list route, a query that it answers 200, and its parameters with values each refuses. */
interface ListCase {
  path: string;
  valid: string;
  refused: Record<string, readonly string[]>;
}

const LISTS: ListCase[] = [
  {
    path: '/api/crypto-currency-protocol-processors',
    valid: 'countryCode=IE&currencyCode=USDT&protocol=TRC20&page=0&size=10',
    refused: {
      countryCode: CONTROL_TEXT,
      currencyCode: CONTROL_TEXT,
      protocol: CONTROL_TEXT,
      page: NOT_A_COUNT,
      size: NOT_A_COUNT,
    },
  },
  {
    path: '/admin/crypto-pairs',
    valid: 'countryCode=ie&currencyCode=usdt&protocol=trc20&page=1&size=100',
    refused: {
      countryCode: CONTROL_TEXT,
      currencyCode: CONTROL_TEXT,
      protocol: CONTROL_TEXT,
      page: NOT_A_COUNT,
      size: NOT_A_COUNT,
    },
  },
  {
    path: '/admin/merchants',
    valid: 'page=0&size=5',
    refused: { page: NOT_A_COUNT, size: NOT_A_COUNT },
  },
  {
    path: '/admin/merchants/filters-m/api-keys',
    valid: 'page=0&size=5',
    refused: { page: NOT_A_COUNT, size: NOT_A_COUNT },
  },
  {
    path: '/admin/operators',
    valid: 'page=0&size=5',
    refused: { page: NOT_A_COUNT, size: NOT_A_COUNT },
  },
  {
    path: '/admin/audit-events',
    valid:
      'operator=root&action=createMerchant&target=filters-m&from=2026-01-01&to=2099-01-01T00:00:00Z',
    refused: {
      operator: CONTROL_TEXT,
      action: CONTROL_TEXT,
      target: CONTROL_TEXT,
      from: [...CONTROL_TEXT, '2026-13-01', '%2B275760-09-13T00:00:01Z', '2026-01-01T00:00:00'],
      to: [...CONTROL_TEXT, '99999-01-01', '2026-02-30'],
      page: NOT_A_COUNT,
      size: NOT_A_COUNT,
    },
  },
  {
    path: '/admin/audit-events/verify',
    valid: `head=${'0'.repeat(64)}&events=0`,
    refused: {
      head: [...CONTROL_TEXT, 'g'.repeat(64)].map((v) => `${v}&events=1`),
      events: NOT_A_COUNT.map((v) => `${v}&head=${'0'.repeat(64)}`),
    },
  },
  {
    path: '/admin/payment-sessions',
    valid:
      'merchantId=filters-m&status=PENDING&createdFrom=2026-01-01T00:00:00Z&createdTo=2099-01-01T00:00:00Z&size=5',
    refused: {
      merchantId: CONTROL_TEXT,
      status: CONTROL_TEXT,
      createdFrom: [...CONTROL_TEXT, '%2B275760-09-13T00:00:01Z', '2026-02-30T00:00:00Z'],
      createdTo: [...CONTROL_TEXT, '99999-01-01T00:00:00Z'],
      cursor: CURSORS.map(([, cursor]) => cursor),
      size: NOT_A_COUNT,
    },
  },
  {
    path: '/admin/deposit-addresses',
    valid: 'network=evm&chainId=1&state=watching&size=5',
    refused: {
      network: [...CONTROL_TEXT, 'EVM'],
      chainId: [...NOT_A_COUNT, '0', '2147483648'].map((v) => `${v}&network=evm`),
      state: [...CONTROL_TEXT, 'open'].map((v) => `${v}&network=evm`),
      cursor: ID_CURSORS.map((v) => `${v}&network=evm`),
      size: NOT_A_COUNT.map((v) => `${v}&network=evm`),
    },
  },
  {
    path: '/admin/deposits',
    valid: 'flagged=true&validationKey=vk_filters_0&network=tron&size=5',
    refused: {
      flagged: [...CONTROL_TEXT, 'yes'],
      validationKey: CONTROL_TEXT,
      network: CONTROL_TEXT,
      cursor: ID_CURSORS,
      size: NOT_A_COUNT,
    },
  },
];

describe(`every filter and cursor, on ${TEST_DIALECT} (e2e)`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const merchant = await http(`${t.url}/admin/merchants`, {
      method: 'POST',
      headers: adminHeaders,
      body: { id: 'filters-m', name: 'Filters' },
    });
    expect(merchant.status).toBe(201);
    // Enough sessions for a second page, so that a real cursor exists beside the forged ones.
    for (let i = 0; i < 3; i++) {
      const r = await http(`${t.url}/admin/payment-sessions/vk_filters_${i}`, {
        method: 'PUT',
        headers: adminHeaders,
        body: { merchantId: 'filters-m', status: 'PENDING' },
      });
      expect(r.status).toBe(201);
    }
  });
  afterAll(() => t.close());

  it.each(LISTS.map((list) => [list.path, list.valid]))('%s answers ?%s', async (path, query) => {
    const r = await http(`${t.url}${path}?${query}`, { headers: adminHeaders });
    expect(r.status).toBe(200);
  });

  const refusals = LISTS.flatMap(({ path, refused }) =>
    Object.entries(refused).flatMap(([name, values]) =>
      values.map((value) => [path, name, value] as const),
    ),
  );

  it.each(refusals)('%s refuses %s=%s (400, naming it)', async (path, name, value) => {
    const r = await http(`${t.url}${path}?${name}=${value}`, { headers: adminHeaders });
    const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(errors.map((error) => error.field)).toContain(name);
  });

  it.each(CURSORS)('refuses a cursor that decodes to %s', async (_what, cursor) => {
    const r = await http(`${t.url}/admin/payment-sessions?cursor=${cursor}`, {
      headers: adminHeaders,
    });
    expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
      expect.objectContaining({ field: 'cursor' }),
    ]);
  });

  it('follows a cursor the list wrote to the next page', async () => {
    const first = await http(`${t.url}/admin/payment-sessions?merchantId=filters-m&size=2`, {
      headers: adminHeaders,
    });
    expect(first.body.payload).toHaveLength(2);
    const next = await http(
      `${t.url}/admin/payment-sessions?merchantId=filters-m&size=2&cursor=${first.body.nextCursor}`,
      { headers: adminHeaders },
    );
    expect(next.status).toBe(200);
    expect(next.body.payload).toHaveLength(1);
  });

  const pathParameters: [string, string][] = [
    ['PATCH', '/admin/merchants/a%00b'],
    ['GET', '/admin/merchants/a%00b/api-keys'],
    ['DELETE', '/admin/merchants/filters-m/api-keys/a%00b'],
    ['GET', '/admin/payment-sessions/a%00b'],
    ['GET', '/admin/payment-sessions/a%00b/history'],
    ['GET', '/admin/payment-sessions/a%00b/callbacks'],
    ['DELETE', '/admin/payment-sessions/a%00b/personal-data'],
    ['DELETE', '/admin/crypto-pairs/1%00'],
    ['DELETE', '/admin/operators/a%00b'],
    ['POST', '/admin/callbacks/a%00b/redeliver'],
  ];
  const bodyOf = (method: string) => (method === 'PATCH' ? { name: 'x' } : undefined);

  it.each(pathParameters)(
    '%s %s without a token: 401, and the refusal recorded with the NUL escaped',
    async (method, path) => {
      const r = await http(`${t.url}${path}`, { method, body: bodyOf(method) });
      expectEnvelope(r, 401, 'UNAUTHORIZED');
      const events = await http(`${t.url}/admin/audit-events?operator=unknown&size=1`, {
        headers: adminHeaders,
      });
      expect(events.status).toBe(200);
      expect(events.body.payload[0]).toMatchObject({ outcome: 401, reason: 'missing_token' });
      expect(events.body.payload[0].target).toContain('\\u0000');
    },
  );

  it.each(pathParameters)('%s %s with a token: 400, naming the parameter', async (method, path) => {
    const r = await http(`${t.url}${path}`, {
      method,
      headers: adminHeaders,
      body: bodyOf(method),
    });
    const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(error.field).toMatch(/^(id|keyId|validationKey)$/);
  });
});
