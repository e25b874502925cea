import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { PROCESS_TEST_TIMEOUT_MS, runSeed } from './support/main-process.js';
import { adminHeaders, expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';

const RULE = 'must be 1 to 255 printable ASCII characters without "/", and not "." or ".."';
const NOT_FOUND = JSON.stringify({
  errors: [
    {
      type: 'FATAL',
      errorCode: 'TRANSACTION_FAILED',
      message: 'Transaction declined: incorrect validation key, no records found.',
      field: 'validationKey',
    },
  ],
});

/** Keys the operator API refuses, as they appear in a URL path (percent-encoded). */
const REFUSED_IN_PATH: [string, string][] = [
  ['a NUL', 'vk%001'],
  ['an encoded slash', 'vk%2F1'],
  ['a control character', 'vk%011'],
  ['a newline', 'vk%0A1'],
  ['DEL', 'vk%7F1'],
  ['an umlaut', 'vk_%C3%BCnicode'],
  ['a dotless ı', 'vk_%C4%B1'],
  ['256 characters', 'k'.repeat(256)],
];

describe('validation keys (e2e)', () => {
  let t: TestApp;

  const put = (encodedKey: string) =>
    http(`${t.url}/admin/payment-sessions/${encodedKey}`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { merchantId: 'acme', status: 'PENDING' },
    });

  const storedKeys = async () =>
    (
      (await t.app
        .get(DataSource)
        .query('SELECT validation_key AS k FROM payment_session ORDER BY k')) as { k: string }[]
    ).map((row) => row.k);

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '10000' });
    await t.seed({
      merchants: [{ id: 'acme', name: 'Acme' }],
      paymentSessions: [{ validationKey: 'vk_existing', merchantId: 'acme', status: 'PENDING' }],
    });
  });
  afterAll(() => t.close());

  it.each(REFUSED_IN_PATH)(
    'refuses a key with %s in PUT with 400 naming validationKey, and stores nothing',
    async (_what, encodedKey) => {
      const before = await storedKeys();
      const r = await put(encodedKey);
      expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
        {
          type: 'VALIDATION',
          errorCode: 'INVALID_PARAMETER',
          message: RULE,
          field: 'validationKey',
        },
      ]);
      expect(await storedKeys()).toEqual(before);
    },
  );

  it.each(REFUSED_IN_PATH)('refuses a key with %s in the history route', async (_w, encodedKey) => {
    const r = await http(`${t.url}/admin/payment-sessions/${encodedKey}/history`, {
      headers: adminHeaders,
    });
    expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
      expect.objectContaining({ field: 'validationKey', message: RULE }),
    ]);
  });

  it.each(REFUSED_IN_PATH)(
    'still answers the status lookup of a key with %s with the ordinary 404',
    async (_w, encodedKey) => {
      const r = await http(`${t.url}/api/gateway/payment-status/${encodedKey}`);
      expect(r.status).toBe(404);
      expect(r.text).toBe(NOT_FOUND);
    },
  );

  it('accepts printable ASCII with spaces and punctuation, and serves it', async () => {
    const key = 'vk with spaces.~!$&()*+,;=:@-_';
    const r = await put(encodeURIComponent(key));
    expect(r.status).toBe(201);
    expect(r.body.validationKey).toBe(key);
    const s = await http(`${t.url}/api/gateway/payment-status/${encodeURIComponent(key)}`);
    expect(s.status).toBe(200);
    expect(s.body).toEqual({ payload: [{ status: 'PENDING' }] });
  });

  it('takes a key with ";" sent unescaped whole, never the part before it', async () => {
    // Two sessions, one key the other's up to ";": each request must reach its own.
    expect((await put('semi')).status).toBe(201);
    const report = await http(`${t.url}/admin/payment-sessions/semi;colon`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { merchantId: 'acme', status: 'FAILED', errorMessage: 'Declined' },
    });
    expect({ status: report.status, key: report.body.validationKey }).toEqual({
      status: 201,
      key: 'semi;colon',
    });
    const status = async (path: string) =>
      (await http(`${t.url}/api/gateway/payment-status/${path}`)).body;
    expect(await status('semi')).toEqual({ payload: [{ status: 'PENDING' }] });
    const failed = { payload: [{ status: 'FAILED', errorMessage: 'Declined' }] };
    expect(await status('semi;colon')).toEqual(failed);
    expect(await status('semi%3Bcolon')).toEqual(failed);
    const history = await http(`${t.url}/admin/payment-sessions/semi;colon/history`, {
      headers: adminHeaders,
    });
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({
      validationKey: 'semi;colon',
      payload: [{ from: null, to: 'FAILED' }],
    });
    expect(await storedKeys()).toEqual(expect.arrayContaining(['semi', 'semi;colon']));
  });

  it('refuses "." and ".." as keys in a body: no URL could reach them', async () => {
    for (const key of ['.', '..']) {
      const r = await http(`${t.url}/admin/payment-sessions/vk_existing`, {
        method: 'PUT',
        headers: adminHeaders,
        body: { merchantId: 'acme', status: 'PENDING', paymentResponse: { validationKey: key } },
      });
      expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
        expect.objectContaining({ field: 'paymentResponse.validationKey', message: RULE }),
      ]);
    }
  });

  it('refuses a paymentResponse.validationKey that breaks the rule', async () => {
    const r = await http(`${t.url}/admin/payment-sessions/vk_existing`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { merchantId: 'acme', status: 'PENDING', paymentResponse: { validationKey: 'a/b' } },
    });
    expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
      expect.objectContaining({ field: 'paymentResponse.validationKey', message: RULE }),
    ]);
  });

  describe('seed files', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it.each([false, true])(
      'refuse sessions with impossible keys, one line each, before opening the database (dry run: %s)',
      async (dryRun) => {
        const file = join(dir, 'keys.json');
        const keys = ['vk ok', 'vk/slash', 'vk\u0000nul', 'vk_ünicode', 'vk\ttab', ''];
        writeFileSync(
          file,
          JSON.stringify({
            merchants: [{ id: 'acme', name: 'Acme' }],
            paymentSessions: keys.map((validationKey) => ({
              validationKey,
              merchantId: 'acme',
              status: 'PENDING',
            })),
          }),
        );
        // A process of its own, as beside a service in production.
        const { code, out, err } = await runSeed(dryRun ? [file, '--dry-run'] : [file], {
          DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
        });
        expect(code).toBe(1);
        expect(out).toEqual([]);
        expect(err).toEqual([
          ...[1, 2, 3, 4, 5].map((i) => `${file}: paymentSessions[${i}].validationKey: ${RULE}`),
          `${file}: 5 error(s); nothing was written`,
        ]);
        expect(existsSync(join(dir, 'db.sqlite'))).toBe(false);
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  });
});
