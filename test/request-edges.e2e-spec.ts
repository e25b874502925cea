import type { Express } from 'express';
import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { rawRequest, RawResponse } from './support/raw-http.js';
import { adminHeaders, expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';

const KEY = 'edges-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const SESSION = 'vk_edges_secret_5e4d3c2b1a';
const NOT_FOUND_BODY =
  '{"errors":[{"type":"FATAL","errorCode":"TRANSACTION_FAILED","message":"Transaction declined: incorrect validation key, no records found.","field":"validationKey"}]}';
const SEED = {
  merchants: [{ id: 'edges', name: 'Edges', apiKeys: [KEY] }],
  paymentSessions: [{ validationKey: SESSION, merchantId: 'edges', status: 'PENDING' }],
};

/** Spellings of paths below /api that a router does not resolve as given. */
const ODD_STATUS_PATHS = [
  `/api/gateway/payment-status/${SESSION}/extra`,
  '/api/gateway/payment-status/%E0%A4%A',
  '/api/gateway/payment-status/',
  `/api/./gateway/payment-status/${SESSION}`,
  `/API/gateway/payment-status/${SESSION}`,
  `/api/x/../gateway/payment-status/${SESSION}`,
  `//api//gateway/payment-status/${SESSION}`,
  `/api;x=1/gateway/payment-status/${SESSION}`,
  `/api\\gateway/payment-status/${SESSION}`,
  `/%61pi/gateway/payment-status/${SESSION}`,
  `/api/gateway/payment-status/${SESSION}/`,
];

const get = (path: string, headers: Record<string, string> = {}) =>
  Object.entries({ Host: 'localhost', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
    .replace(/^/, `GET ${path} HTTP/1.1\r\n`)
    .concat('Connection: close\r\n\r\n');

function expectRawEnvelope(r: RawResponse, status: number, errorCode: string) {
  expect({ status: r.status, type: r.headers['content-type'] }).toEqual({
    status,
    type: 'application/json; charset=utf-8',
  });
  const body = JSON.parse(r.body) as {
    errors: { type: string; errorCode: string; message: string }[];
  };
  expect(body.errors.map((e) => e.errorCode)).toEqual([errorCode]);
  expect(body.errors[0].message.length).toBeGreaterThan(0);
  return body.errors;
}

describe('requests at the edges (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(
      { AUTH_MODE: 'api-key', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' },
      { captureLogs: true },
    );
    await t.seed(SEED);
  });
  afterAll(() => t.close());

  /** The first log line holding `text`, once it is written (the log is written asynchronously). */
  async function logLine(text: string): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const line = t.logs.find((l) => l.includes(text));
      if (line !== undefined) return line;
      if (Date.now() > deadline) throw new Error(`no log line holds ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  describe('JSON nested too deep', () => {
    const arrays = '['.repeat(2000) + ']'.repeat(2000);
    const objects = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const routes: [string, string][] = [
      ['POST', '/admin/crypto-pairs'],
      ['PATCH', '/admin/crypto-pairs/1'],
      ['PUT', `/admin/payment-sessions/vk_deep_1`],
      ['POST', '/admin/merchants'],
    ];
    it.each(routes)(
      '%s %s answers 400 MALFORMED_REQUEST, before any validation',
      async (method, path) => {
        for (const rawBody of [arrays, objects]) {
          const r = await http(t.url + path, {
            method,
            headers: { ...adminHeaders, 'content-type': 'application/json' },
            rawBody,
          });
          const [error] = expectEnvelope(r, 400, 'MALFORMED_REQUEST');
          expect(error.message).toContain('32');
        }
        expect(
          (
            await http(t.url + '/admin/payment-sessions/vk_deep_1/history', {
              headers: adminHeaders,
            })
          ).status,
        ).toBe(404);
      },
    );

    it('parses 32 levels (then validates), refuses 33; brackets inside strings do not count', async () => {
      const nested = (levels: number) => '{"x":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
      const post = (rawBody: string) =>
        http(t.url + '/admin/crypto-pairs', {
          method: 'POST',
          headers: { ...adminHeaders, 'content-type': 'application/json' },
          rawBody,
        });
      expectEnvelope(await post(nested(32)), 400, 'INVALID_PARAMETER');
      expectEnvelope(await post(nested(33)), 400, 'MALFORMED_REQUEST');
      const created = await post(
        JSON.stringify({
          currencyCode: 'DEEP',
          currencyName: '['.repeat(40) + '{'.repeat(40),
          protocol: 'TRC20',
          countryCode: 'IE',
        }),
      );
      expect(created.status).toBe(201);
    });
  });

  it('does not read the body of a GET, on either platform', async () => {
    const body = '{"not json';
    const r = await rawRequest(
      t.url,
      `GET /api/crypto-currency-protocol-processors HTTP/1.1\r\nHost: localhost\r\nkey: ${KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toHaveProperty('payload');
  });

  it('serves a target in absolute form (RFC 9112) as its path, key and spelling checked alike', async () => {
    const target = `http://gateway.example/api/gateway/payment-status/${SESSION}`;
    const anonymous = await rawRequest(t.url, get(target));
    expectRawEnvelope(anonymous, 401, 'UNAUTHORIZED');
    const found = await rawRequest(t.url, get(target, { key: KEY }));
    expect({ status: found.status, body: JSON.parse(found.body) as unknown }).toEqual({
      status: 200,
      body: { payload: [{ status: 'PENDING' }] },
    });
    const odd = await rawRequest(
      t.url,
      get(`http://gateway.example/API/gateway/payment-status/${SESSION}`, { key: KEY }),
    );
    expect({ status: odd.status, body: odd.body }).toEqual({ status: 404, body: NOT_FOUND_BODY });
  });

  it("builds requests and responses on the platform's prototypes from the start", async () => {
    // Express re-parents each request and response unless Node already built them on its
    // prototypes; the re-parenting keeps request memory alive through young collections.
    const server = t.app.getHttpServer() as Server;
    const seen: [object, object][] = [];
    const record = (request: IncomingMessage, response: ServerResponse) =>
      seen.push([
        Object.getPrototypeOf(request) as object,
        Object.getPrototypeOf(response) as object,
      ]);
    server.prependListener('request', record);
    try {
      const r = await http(`${t.url}/api/gateway/payment-status/${SESSION}`, {
        headers: { key: KEY },
      });
      expect(r.body).toEqual({ payload: [{ status: 'PENDING' }] });
    } finally {
      server.off('request', record);
    }
    const adapter = t.app.getHttpAdapter();
    const expected: [object, object] =
      adapter.getType() === 'express'
        ? [(adapter.getInstance() as Express).request, (adapter.getInstance() as Express).response]
        : [IncomingMessage.prototype, ServerResponse.prototype];
    expect(seen).toHaveLength(1);
    // Named so that an upgrade that breaks it says what it broke.
    const built = (actual: object, wanted: object, what: string) =>
      actual === wanted
        ? what
        : `${what} built on another prototype: Node's createServer({ IncomingMessage, ` +
          "ServerResponse }) or Express's app.request / app.response changed " +
          '(src/http/platform.ts, constructorOn; docs/decisions.md, "Documented APIs only")';
    expect([
      built(seen[0][0], expected[0], 'request'),
      built(seen[0][1], expected[1], 'response'),
    ]).toEqual(['request', 'response']);
  });

  describe('requests Node refuses before the application', () => {
    it.each([
      ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'MALFORMED_REQUEST'],
      [
        'a header with a control character',
        'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n',
        400,
        'MALFORMED_REQUEST',
      ],
      [
        '17 kB of headers',
        `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`,
        431,
        'HEADERS_TOO_LARGE',
      ],
      [
        'an unsupported Expect',
        'GET /health/live HTTP/1.1\r\nHost: x\r\nExpect: 100-foo\r\n\r\n',
        417,
        'EXPECTATION_FAILED',
      ],
      [
        'CONNECT',
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
        405,
        'METHOD_NOT_ALLOWED',
      ],
    ])('answers %s with the envelope and Connection: close', async (_label, head, status, code) => {
      const r = await rawRequest(t.url, head);
      expectRawEnvelope(r, status, code);
      expect(r.headers.connection).toBe('close');
      expect(r.closedByServer).toBe(true);
    });

    it('answers headers that never end with 408 REQUEST_TIMEOUT within the limit', async () => {
      const r = await rawRequest(t.url, 'GET /health/live HTTP/1.1\r\nHost: x\r\n', {
        waitMs: 8000,
      });
      expectRawEnvelope(r, 408, 'REQUEST_TIMEOUT');
      expect(r.headers.connection).toBe('close');
      expect(r.elapsedMs).toBeLessThan(4000);
    });

    it('closes a connection that sent nothing within the limit without an answer', async () => {
      const r = await rawRequest(t.url, '', { waitMs: 8000 });
      expect(r.text).toBe('');
      expect(r.closedByServer).toBe(true);
      expect(r.elapsedMs).toBeLessThan(4000);
    });

    it('answers a body trickled byte by byte with 408 REQUEST_TIMEOUT within the limit', async () => {
      const head =
        'PUT /admin/payment-sessions/vk_slow_1 HTTP/1.1\r\nHost: x\r\nx-request-id: edges-slow-body\r\n' +
        `Authorization: ${adminHeaders.authorization}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
      const r = await rawRequest(t.url, head, {
        trickle: 'x'.repeat(200),
        trickleEveryMs: 200,
        waitMs: 10_000,
      });
      expectRawEnvelope(r, 408, 'REQUEST_TIMEOUT');
      expect(r.elapsedMs).toBeLessThan(5000);
      // Node read its headers: the answer and the log keep the client's id.
      expect(r.headers['x-request-id']).toBe('edges-slow-body');
      expect(
        JSON.parse(await logLine('"requestId":"edges-slow-body","statusCode":408')),
      ).toMatchObject({ msg: 'Refused while its body was read: 408 REQUEST_TIMEOUT' });
    });

    it('refuses an unauthenticated slow body at once and closes the connection', async () => {
      const head =
        'POST /admin/crypto-pairs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n';
      const r = await rawRequest(t.url, head, {
        trickle: 'x'.repeat(200),
        trickleEveryMs: 200,
        waitMs: 10_000,
      });
      expectRawEnvelope(r, 401, 'UNAUTHORIZED');
      expect(r.closedByServer).toBe(true);
      expect(r.elapsedMs).toBeLessThan(1500);
    });
  });

  describe('every path below /api is admitted first, whatever its spelling', () => {
    it.each([...ODD_STATUS_PATHS, '/api/no-such-route'])(
      '%s without a key is a 401',
      async (path) => {
        expectRawEnvelope(await rawRequest(t.url, get(path)), 401, 'UNAUTHORIZED');
      },
    );

    it.each(ODD_STATUS_PATHS)('%s with api-version 2 is a 400', async (path) => {
      const r = await rawRequest(t.url, get(path, { key: KEY, 'api-version': '2' }));
      expectRawEnvelope(r, 400, 'UNSUPPORTED_API_VERSION');
    });

    it.each(ODD_STATUS_PATHS)(
      '%s with a key is the unknown-key 404, bytes and headers alike',
      async (path) => {
        const unknown = await rawRequest(
          t.url,
          get('/api/gateway/payment-status/no-such-key', { key: KEY }),
        );
        const odd = await rawRequest(t.url, get(path, { key: KEY }));
        expect(odd.status).toBe(404);
        expect(odd.body).toBe(NOT_FOUND_BODY);
        expect(unknown.body).toBe(NOT_FOUND_BODY);
        const names = (r: RawResponse) =>
          Object.keys(r.headers)
            .filter((h) => !['date', 'x-request-id'].includes(h))
            .sort();
        expect(names(odd)).toEqual(names(unknown));
        expect(odd.headers['cache-control']).toBe('no-store');
        expect(odd.headers['x-ratelimit-limit']).toBeDefined();
      },
    );
  });

  describe('the docs page', () => {
    it.each([
      '/docs/..',
      '/docs/../../../etc/passwd',
      '/docs/%2e%2e/%2e%2e/etc/passwd',
      '/docs/.hidden',
      `/docs/${'a'.repeat(5000)}`,
      '/docs/docs/swagger-ui.css',
    ])('answers %s with 404 NOT_FOUND in the envelope', async (path) => {
      expectRawEnvelope(await rawRequest(t.url, get(path)), 404, 'NOT_FOUND');
    });

    it('serves its page and files', async () => {
      for (const path of ['/docs', '/docs/', '/docs/swagger-ui.css', '/docs-json']) {
        expect({ path, status: (await rawRequest(t.url, get(path))).status }).toEqual({
          path,
          status: 200,
        });
      }
    });
  });

  describe('logs', () => {
    it('give each request refused before routing an id, echoed when Node read one', async () => {
      const refusals: [string, string, number][] = [
        ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443', 'edges-connect', 405],
        ['GET /health/live HTTP/1.1\r\nHost: x\r\nExpect: 100-foo', 'edges-expect', 417],
      ];
      const ids: [string, number][] = [];
      for (const [head, id, status] of refusals) {
        const r = await rawRequest(t.url, `${head}\r\nx-request-id: ${id}\r\n\r\n`);
        expect({ status: r.status, id: r.headers['x-request-id'] }).toEqual({ status, id });
        ids.push([id, status]);
      }
      const malformed = await rawRequest(t.url, 'GARBAGE\r\nx-request-id: edges-garbage\r\n\r\n');
      const generated = String(malformed.headers['x-request-id']);
      expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      ids.push([generated, 400]);
      for (const [id, status] of ids) {
        expect(JSON.parse(await logLine(`"requestId":"${id}"`))).toMatchObject({
          requestId: id,
          statusCode: status,
          msg: expect.stringContaining('Refused before routing') as string,
        });
      }
    });

    it('never hold the full validation key, whatever the spelling of the path', async () => {
      for (const [index, path] of ODD_STATUS_PATHS.entries()) {
        await rawRequest(t.url, get(path, { key: KEY, 'x-request-id': `edges-log-${index}` }));
      }
      for (const index of ODD_STATUS_PATHS.keys()) await logLine(`"edges-log-${index}"`);
      const leaking = t.logs.filter((line) => line.includes(SESSION.slice(0, 7)));
      expect(leaking).toEqual([]);
      expect(await logLine('"edges-log-3"')).toContain(`${SESSION.slice(0, 6)}…`);
    });

    it('cut a logged URL to 512 characters', async () => {
      const path = `/api/${'p'.repeat(15_000)}`;
      await rawRequest(t.url, get(path, { key: KEY, 'x-request-id': 'edges-long-path' }));
      const line = await logLine('"edges-long-path"');
      expect((JSON.parse(line) as { url: string }).url.length).toBeLessThanOrEqual(512);
      expect(line.length).toBeLessThan(1500);
    });
  });
});

describe('CONTEXT_PATH spelled otherwise (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key', CONTEXT_PATH: '/pegasus-ci' });
    await t.seed(SEED);
  });
  afterAll(() => t.close());

  it.each([
    `/PEGASUS-CI/api/gateway/payment-status/${SESSION}`,
    `/pegasus-ci/x/../api/gateway/payment-status/${SESSION}`,
    `/%70egasus-ci/api/gateway/payment-status/${SESSION}`,
  ])('asks for the key below its /api (%s), then answers as no route', async (path) => {
    expectRawEnvelope(await rawRequest(t.url, get(path)), 401, 'UNAUTHORIZED');
    const r = await rawRequest(t.url, get(path, { key: KEY }));
    expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: NOT_FOUND_BODY });
  });

  it('serves the prefix spelled as configured', async () => {
    const r = await rawRequest(
      t.url,
      get(`/pegasus-ci/api/gateway/payment-status/${SESSION}`, { key: KEY }),
    );
    expect(r.status).toBe(200);
  });
});

describe('odd paths count against both rate limits (e2e)', () => {
  it('counts misses on odd spellings against the 404 limit', async () => {
    const t = await startTestApp({
      AUTH_MODE: 'api-key',
      RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '3',
    });
    try {
      await t.seed(SEED);
      for (const path of ODD_STATUS_PATHS.slice(0, 3)) {
        expect((await rawRequest(t.url, get(path, { key: KEY }))).status).toBe(404);
      }
      expectRawEnvelope(
        await rawRequest(t.url, get(ODD_STATUS_PATHS[3], { key: KEY })),
        429,
        'RATE_LIMITED',
      );
      // Blocked now: even the merchant's own session is refused.
      const own = await http(`${t.url}/api/gateway/payment-status/${SESSION}`, {
        headers: { key: KEY },
      });
      expectEnvelope(own, 429, 'RATE_LIMITED');
    } finally {
      await t.close();
    }
  });

  it('counts keyless requests on odd spellings against the general limit', async () => {
    const t = await startTestApp({ AUTH_MODE: 'api-key', RATE_LIMIT_PER_MINUTE: '5' });
    try {
      for (const path of ODD_STATUS_PATHS.slice(0, 5)) {
        expect((await rawRequest(t.url, get(path))).status).toBe(401);
      }
      const r = await rawRequest(t.url, get(ODD_STATUS_PATHS[5]));
      expectRawEnvelope(r, 429, 'RATE_LIMITED');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
    }
  });
});
