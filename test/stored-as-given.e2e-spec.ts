import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { rawRequest } from './support/raw-http.js';
import {
  adminHeaders,
  expectEnvelope,
  http,
  loggedLine,
  startTestApp,
  successfulResponse,
  TestApp,
} from './support/test-app.js';

/**
 * Input is stored exactly as given, or refused with the field's rule: money judged on the digits
 * the client sent, text that is text, no body read through an encoding the service does not
 * apply, no password kept inside a callback URL. Every refusal leaves nothing stored.
 */
describe('input stored as given, or refused (e2e)', () => {
  let t: TestApp;
  const PAIRS = '/admin/crypto-pairs';
  const pair = {
    currencyCode: 'USDT',
    currencyName: 'Tether',
    protocol: 'TRC20',
    countryCode: 'IE',
  };

  beforeAll(async () => {
    t = await startTestApp({}, { captureLogs: true });
    await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }] });
  });
  afterAll(() => t.close());

  /** A request whose body is the exact bytes given. */
  function sendBytes(
    path: string,
    method: string,
    body: Buffer,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: { errors?: { errorCode: string; field?: string }[] } }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${t.url}${path}`,
        {
          method,
          headers: {
            ...adminHeaders,
            'content-type': 'application/json',
            'content-length': String(body.length),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  const report = (key: string, amountText: string) =>
    sendBytes(
      `/admin/payment-sessions/${key}`,
      'PUT',
      Buffer.from(
        JSON.stringify({
          merchantId: 'acme',
          status: 'SUCCESSFUL',
          paymentResponse: { ...successfulResponse(), money: { amount: 0, currency: 'EUR' } },
        }).replace('"money":{"amount":0', `"money":{"amount":${amountText}`),
      ),
    );

  const stored = async (key: string) =>
    (await http(`${t.url}/admin/payment-sessions/${key}/history`, { headers: adminHeaders }))
      .status === 200;

  describe('money amounts, judged on the text sent', () => {
    it.each([
      ['1e-400', 'an exponent that hides the digits'],
      ['1.0000000000000000001', 'more than two decimals that a double rounds away'],
      ['0.30000000000000001', 'more than two decimals that read as 0.3'],
      ['-0', 'a negative zero'],
      ['1e2', 'an exponent'],
      ['1.005', 'three decimals'],
    ])('refuses %s (%s) with the field, and stores nothing', async (amount) => {
      const key = `vk-money-${Buffer.from(amount).toString('hex')}`;
      const r = await report(key, amount);
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([
        expect.objectContaining({
          errorCode: 'INVALID_PARAMETER',
          field: 'paymentResponse.money.amount',
        }),
      ]);
      expect(await stored(key)).toBe(false);
    });

    it('refuses the string "-0" as the number -0 is refused', async () => {
      const r = await report('vk-money-string-minus-zero', '"-0"');
      expect(r.status).toBe(400);
      expect(r.body.errors?.[0].field).toBe('paymentResponse.money.amount');
    });

    it.each([
      ['1.50', 1.5],
      ['150', 150],
      ['0.3', 0.3],
      ['"10.10"', 10.1],
    ])('accepts %s and answers exactly that amount', async (amount, expected) => {
      const key = `vk-money-ok-${Buffer.from(amount).toString('hex')}`;
      const r = await report(key, amount);
      expect(r.status).toBe(201);
      const status = await http(`${t.url}/api/gateway/payment-status/${key}`);
      expect(status.body.payload[0].paymentResponse.money.amount).toBe(expected);
      expect(status.body.payload[0].paymentResponse.money.presentationAmount).toBe(
        `EUR${expected.toFixed(2)}`,
      );
    });
  });

  describe('text fields', () => {
    const named = (currencyName: string, currencyCode: string) =>
      Buffer.from(JSON.stringify({ ...pair, currencyCode, currencyName }));

    it.each([
      ['a NUL character', named('Teth\u0000er', 'NULA'), 'NULA'],
      ['an ESC character', named('Teth\u001ber', 'ESCA'), 'ESCA'],
      ['a C1 control character', named('Teth\u0085er', 'CONE'), 'CONE'],
      [
        'an escaped lone surrogate',
        Buffer.from(
          JSON.stringify({ ...pair, currencyCode: 'SURR' }).replace('"Tether"', '"Teth\\ud800er"'),
        ),
        'SURR',
      ],
      [
        'bytes that are not UTF-8',
        Buffer.concat([
          Buffer.from(
            JSON.stringify({ ...pair, currencyCode: 'BADU' }).split('Tether')[0] + 'Teth',
          ),
          Buffer.from([0xc3, 0x28, 0xff]),
          Buffer.from('er' + JSON.stringify({ ...pair, currencyCode: 'BADU' }).split('Tether')[1]),
        ]),
        'BADU',
      ],
    ])('refuses %s in a name with the field, and stores nothing', async (_what, body, code) => {
      const r = await sendBytes(PAIRS, 'POST', body);
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([
        expect.objectContaining({ errorCode: 'INVALID_PARAMETER', field: 'currencyName' }),
      ]);
      const listed = await http(`${t.url}${PAIRS}?currencyCode=${code}`, { headers: adminHeaders });
      expect(listed.body.page.total).toBe(0);
    });

    it('stores a real U+FFFD and other characters as given', async () => {
      const name = 'Teth\ufffder ünï 中 😀';
      const r = await sendBytes(PAIRS, 'POST', named(name, 'REPL'));
      expect(r.status).toBe(201);
      const listed = await http(`${t.url}${PAIRS}?currencyCode=REPL`, { headers: adminHeaders });
      expect(listed.body.payload[0].currencyName).toBe(name);
    });

    it('refuses a name given twice in one object', async () => {
      const r = await sendBytes(
        PAIRS,
        'POST',
        Buffer.from(JSON.stringify(pair).replace('{', '{"currencyName":"Other",')),
      );
      expect(r.status).toBe(400);
      expect(r.body.errors?.[0].errorCode).toBe('MALFORMED_REQUEST');
    });
  });

  describe('bodies and requests', () => {
    it('refuses a compressed body with 415, and plain JSON labelled compressed too', async () => {
      const { gzipSync } = await import('node:zlib');
      const json = Buffer.from(JSON.stringify({ ...pair, currencyCode: 'GZIP' }));
      for (const body of [gzipSync(json), json]) {
        const r = await sendBytes(PAIRS, 'POST', body, { 'content-encoding': 'gzip' });
        expect(r.status).toBe(415);
        expect(r.body.errors?.[0]).toMatchObject({
          errorCode: 'UNSUPPORTED_MEDIA_TYPE',
          field: 'content-encoding',
        });
      }
      const listed = await http(`${t.url}${PAIRS}?currencyCode=GZIP`, { headers: adminHeaders });
      expect(listed.body.page.total).toBe(0);
      const identity = await sendBytes(PAIRS, 'POST', json, { 'content-encoding': 'identity' });
      expect(identity.status).toBe(201);
    });

    it('answers an HTTP/1.1 request without Host with the envelope and closes', async () => {
      const r = await rawRequest(t.url, 'GET /health/live HTTP/1.1\r\n\r\n');
      expect(r.status).toBe(400);
      expect(r.headers['connection']).toBe('close');
      expect(r.headers['x-request-id']).toBeTruthy();
      expect(JSON.parse(r.body)).toEqual({
        errors: [
          {
            type: 'VALIDATION',
            errorCode: 'MALFORMED_REQUEST',
            message: 'An HTTP/1.1 request needs a Host header.',
            field: 'host',
          },
        ],
      });
      const http10 = await rawRequest(t.url, 'GET /health/live HTTP/1.0\r\n\r\n');
      expect(http10.status).toBe(200);
    });

    // RFC 9112: more than one Host line, or a Host value that is not a host and
    // port, is a 400 on any version, on every route: public, merchant, operator or none.
    it.each([
      ['two Host lines', 'HTTP/1.1', 'Host: a.example\r\nHost: b.example'],
      ['the same Host twice', 'HTTP/1.1', 'Host: localhost\r\nHost: localhost'],
      ['two Host lines of other case', 'HTTP/1.1', 'host: a.example\r\nHOST: a.example'],
      ['three Host lines', 'HTTP/1.1', 'Host: a\r\nHost: b\r\nHost: c'],
      ['two Host lines in HTTP/1.0', 'HTTP/1.0', 'Host: a\r\nHost: b'],
      ['a Host with a path', 'HTTP/1.1', 'Host: a.example/x'],
      ['a Host with a user', 'HTTP/1.1', 'Host: user@a.example'],
      ['a Host with a port that is not one', 'HTTP/1.1', 'Host: a.example:8o'],
      ['a Host with a space inside', 'HTTP/1.1', 'Host: a b'],
    ])('answers a request with %s with the envelope and closes', async (_what, version, host) => {
      for (const path of [
        '/health/live',
        '/api/crypto-currency-protocol-processors',
        '/admin/merchants',
        '/no/such/path',
      ]) {
        const r = await rawRequest(t.url, `GET ${path} ${version}\r\n${host}\r\n\r\n`);
        expect(r.status).toBe(400);
        expect(r.headers['connection']).toBe('close');
        expect(JSON.parse(r.body)).toEqual({
          errors: [expect.objectContaining({ errorCode: 'MALFORMED_REQUEST', field: 'host' })],
        });
      }
    });

    it.each([
      'localhost',
      'a.example:8080',
      '[::1]:3000',
      '127.0.0.1',
      'xn--exmple-cua.example',
      '',
    ])('answers a request whose one Host is %j', async (host) => {
      const r = await rawRequest(t.url, `GET /health/live HTTP/1.1\r\nHost: ${host}\r\n\r\n`, {
        waitMs: 2000,
      });
      expect(r.status).toBe(200);
    });

    it.each([
      'https://user:secret@shop.example/return',
      'https://user@shop.example/return',
      'https://@shop.example/return',
    ])(
      'refuses a callback URL with user information (%s), and stores nothing',
      async (returnUrl) => {
        const key = `vk-url-${Buffer.from(returnUrl).toString('hex').slice(0, 40)}`;
        const r = await http(`${t.url}/admin/payment-sessions/${key}`, {
          method: 'PUT',
          headers: adminHeaders,
          body: { merchantId: 'acme', status: 'PENDING', returnUrl },
        });
        const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
        expect(error.field).toBe('returnUrl');
        expect(r.text).not.toContain('secret');
        expect(await stored(key)).toBe(false);
      },
    );

    it('logs and counts a request whose client went away mid-body as aborted', async () => {
      await new Promise<void>((resolve) => {
        const req = httpRequest(`${t.url}/admin/payment-sessions/vk-aborted`, {
          method: 'PUT',
          headers: { ...adminHeaders, 'content-type': 'application/json', 'content-length': '500' },
        });
        req.on('error', () => undefined);
        req.on('close', () => resolve());
        // The client goes away once the server has the request and has begun answering for it
        // (its request id set), however long that takes on a busy machine: the request has
        // begun, so its line must say aborted.
        t.app
          .getHttpServer()
          .once('request', (_request: IncomingMessage, response: ServerResponse) => {
            const leave = () => {
              if (response.hasHeader('x-request-id') || response.writableEnded) req.destroy();
              else if (!req.destroyed) setImmediate(leave);
            };
            setImmediate(leave);
          });
        req.write('{"merchantId":"acme",');
      });
      const line = await loggedLine(
        t,
        (entry) =>
          typeof entry.url === 'string' && entry.url.includes('/admin/payment-sessions/vk-ab'),
      );
      expect(line).toMatchObject({ aborted: true, method: 'PUT' });
      expect(line).not.toHaveProperty('statusCode');
      expect(t.logs.join('\n')).not.toMatch(/Service unavailable|The database refuses writes/);
      expect(await stored('vk-aborted')).toBe(false);
      const metrics = await http(`${t.url}/metrics`, { headers: adminHeaders });
      expect(metrics.text).toMatch(
        /http_requests_total\{[^}]*method="PUT"[^}]*status="aborted"[^}]*\} 1/,
      );
    });
  });
});
