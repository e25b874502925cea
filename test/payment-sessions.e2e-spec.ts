import {
  adminHeaders,
  createOperator,
  expectEnvelope,
  http,
  HttpResult,
  startTestApp,
  successfulResponse,
  TestApp,
} from './support/test-app.js';
import { completePaymentResponse } from './support/payment-response-samples.js';
import { maskAccountNumber } from '../src/common/masking.js';
import { PAYMENT_RESPONSE_FIELDS } from '../src/payment-status/payment-response.fields.js';

const MERCHANT = 'acme';
const OTHER_MERCHANT = 'globex';
type Status = 'SUCCESSFUL' | 'PENDING' | 'NOT_COMPLETED' | 'FAILED';

/** A valid report body of each status. */
function reportOf(status: Status, extra: Record<string, unknown> = {}): Record<string, unknown> {
  switch (status) {
    case 'SUCCESSFUL':
      return { merchantId: MERCHANT, status, paymentResponse: successfulResponse(), ...extra };
    case 'FAILED':
      return {
        merchantId: MERCHANT,
        status,
        errorMessage: 'Insufficient funds in source wallet',
        detailedStatus: 'INSUFFICIENT_FUNDS',
        ...extra,
      };
    case 'NOT_COMPLETED':
      return { merchantId: MERCHANT, status, detailedStatus: 'ABANDONED_BY_USER', ...extra };
    case 'PENDING':
      return { merchantId: MERCHANT, status, ...extra };
  }
}

let counter = 0;
/** A fresh validation key per test, so tests never share a session. */
function newKey(label: string): string {
  counter += 1;
  return `vk_${label}_${String(counter).padStart(4, '0')}`;
}

describe('payment sessions: operator reports and the state machine (e2e)', () => {
  let t: TestApp;

  const put = (key: string, body: unknown) =>
    http(`${t.url}/admin/payment-sessions/${encodeURIComponent(key)}`, {
      method: 'PUT',
      headers: adminHeaders,
      body,
    });
  const status = (key: string) =>
    http(`${t.url}/api/gateway/payment-status/${encodeURIComponent(key)}`);
  const history = (key: string) =>
    http(`${t.url}/admin/payment-sessions/${encodeURIComponent(key)}/history`, {
      headers: adminHeaders,
    });

  async function create(key: string, body: Record<string, unknown>): Promise<HttpResult> {
    const r = await put(key, body);
    expect(r.status).toBe(201);
    expect(r.body.outcome).toBe('created');
    return r;
  }

  /** Asserts a refused report left the session exactly as it was. */
  async function expectUnchanged(key: string, before: { status: string; history: string }) {
    const after = await status(key);
    expect(after.status).toBe(200);
    expect(after.text).toBe(before.status);
    const afterHistory = await history(key);
    expect(afterHistory.text).toBe(before.history);
  }

  async function snapshot(key: string) {
    const s = await status(key);
    const h = await history(key);
    expect(s.status).toBe(200);
    expect(h.status).toBe(200);
    return { status: s.text, history: h.text, entries: h.body.payload.length as number };
  }

  beforeAll(async () => {
    // AUTH_MODE=none (the harness default): status lookups need no key and see every merchant.
    t = await startTestApp({
      RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '10000',
      // On PostgreSQL, 20 writes at once below: half of the pool is for reads
      // (src/database/dialect.ts, readPoolSize), so 48 leaves 24 for writes, each write one of its
      // own instead of queueing for one, where a wait past the connect timeout is a 503 by design.
      // With the applications of a spec running beside this one, the shared test server stays
      // well within its max_connections (200, test/support/servers.ts). SQLite ignores it.
      DATABASE_POOL_SIZE: '48',
    });
    await t.seed({
      merchants: [
        { id: MERCHANT, name: 'Acme' },
        { id: OTHER_MERCHANT, name: 'Globex' },
      ],
    });
  });
  afterAll(() => t.close());

  describe('creating and moving', () => {
    it('creates a session with 201 and outcome created', async () => {
      const key = newKey('create');
      const r = await put(key, reportOf('PENDING'));
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        validationKey: key,
        merchantId: MERCHANT,
        version: 1,
        outcome: 'created',
        payload: [{ status: 'PENDING' }],
      });
      const s = await status(key);
      expect(s.status).toBe(200);
      expect(s.body).toEqual({ payload: [{ status: 'PENDING' }] });
      expect(s.headers.get('cache-control')).toBe('no-store');
    });

    it('creates a session directly in a final state', async () => {
      const key = newKey('create_final');
      await create(key, reportOf('FAILED'));
      const s = await status(key);
      expect(s.body).toEqual({
        payload: [
          {
            status: 'FAILED',
            errorMessage: 'Insufficient funds in source wallet',
            detailedStatus: 'INSUFFICIENT_FUNDS',
          },
        ],
      });
    });

    it('omits absent optional fields instead of sending null', async () => {
      const key = newKey('omit');
      await create(key, { merchantId: MERCHANT, status: 'NOT_COMPLETED' });
      const s = await status(key);
      expect(s.text).toBe('{"payload":[{"status":"NOT_COMPLETED"}]}');
      const failed = newKey('omit_failed');
      await create(failed, { merchantId: MERCHANT, status: 'FAILED', errorMessage: 'Declined' });
      const f = await status(failed);
      expect(f.body).toEqual({ payload: [{ status: 'FAILED', errorMessage: 'Declined' }] });
    });

    it('moves a session to a new state with 200 updated; the lookup and history follow', async () => {
      const key = newKey('move');
      await create(key, reportOf('PENDING'));
      const r = await put(key, reportOf('SUCCESSFUL'));
      expect(r.status).toBe(200);
      expect(r.body.outcome).toBe('updated');
      expect(r.body.version).toBe(2);
      expect(r.body.payload[0].status).toBe('SUCCESSFUL');

      const s = await status(key);
      expect(s.status).toBe(200);
      expect(s.body).toEqual({ payload: r.body.payload });

      const h = await history(key);
      expect(h.status).toBe(200);
      expect(
        h.body.payload.map((e: { from: string | null; to: string }) => [e.from, e.to]),
      ).toEqual([
        [null, 'PENDING'],
        ['PENDING', 'SUCCESSFUL'],
      ]);
    });
  });

  describe('final states', () => {
    it('repeating the identical final report is a 200 no-op without a new history entry', async () => {
      const key = newKey('repeat_final');
      await create(key, reportOf('PENDING'));
      const moved = await put(key, reportOf('SUCCESSFUL'));
      expect(moved.status).toBe(200);
      const before = await snapshot(key);
      expect(before.entries).toBe(2);

      const again = await put(key, reportOf('SUCCESSFUL'));
      expect(again.status).toBe(200);
      expect(again.body.outcome).toBe('unchanged');
      expect(again.body.version).toBe(moved.body.version);
      expect(again.body.payload).toEqual(moved.body.payload);
      await expectUnchanged(key, before);
    });

    it('refuses any change of a final session with 409 CONFLICT and changes nothing', async () => {
      const key = newKey('final_change');
      await create(key, reportOf('FAILED'));
      const before = await snapshot(key);
      for (const change of [reportOf('PENDING'), reportOf('FAILED', { errorMessage: 'Other' })]) {
        const errors = expectEnvelope(await put(key, change), 409, 'CONFLICT');
        expect(errors[0].type).toBe('FATAL');
      }
      await expectUnchanged(key, before);
    });
  });

  describe('validation', () => {
    // Every rule per field and per status is a unit test (payment-report.dto.spec.ts); these
    // show how a refusal reaches the client: one entry per field, dotted paths, nothing stored.
    it('refuses a new session with one error per field and stores nothing', async () => {
      const key = newKey('invalid_new');
      const r = await put(
        key,
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({
            sourceMoney: { amount: -150, currency: 'EUR' },
            totalFees: { amount: 1.555, currency: 'EUR' },
          }),
        }),
      );
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual([
        'paymentResponse.sourceMoney.amount',
        'paymentResponse.totalFees.amount',
      ]);
      for (const error of errors) expect(error.type).toBe('VALIDATION');
      expectEnvelope(await status(key), 404, 'TRANSACTION_FAILED');
      expectEnvelope(await history(key), 404, 'NOT_FOUND');
    });

    it('refuses a move that breaks the status rules and changes nothing', async () => {
      const key = newKey('invalid_move');
      await create(key, reportOf('PENDING'));
      const before = await snapshot(key);
      const r = await put(
        key,
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ money: undefined, traceId: undefined }),
        }),
      );
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual([
        'paymentResponse.money',
        'paymentResponse.traceId',
      ]);
      await expectUnchanged(key, before);
    });

    it('refuses a null with 400 naming its field, never stores it, never answers 500', async () => {
      const key = newKey('null_new');
      const refusals: [Record<string, unknown>, string][] = [
        [reportOf('SUCCESSFUL', { paymentResponse: null }), 'paymentResponse'],
        [
          reportOf('SUCCESSFUL', { paymentResponse: successfulResponse({ money: null }) }),
          'paymentResponse.money',
        ],
        [
          reportOf('SUCCESSFUL', {
            paymentResponse: successfulResponse({ transactionReference: null }),
          }),
          'paymentResponse.transactionReference',
        ],
        [
          reportOf('SUCCESSFUL', { paymentResponse: successfulResponse({ accountNumber: null }) }),
          'paymentResponse.accountNumber',
        ],
        [
          reportOf('SUCCESSFUL', { paymentResponse: successfulResponse({ description: null }) }),
          'paymentResponse.description',
        ],
      ];
      for (const [body, field] of refusals) {
        const errors = expectEnvelope(await put(key, body), 400, 'INVALID_PARAMETER');
        expect(errors.map((e) => e.field)).toEqual([field]);
      }
      expectEnvelope(await status(key), 404, 'TRANSACTION_FAILED');

      const pending = newKey('null_move');
      await create(pending, reportOf('PENDING'));
      const before = await snapshot(pending);
      const errors = expectEnvelope(
        await put(pending, reportOf('FAILED', { errorMessage: null })),
        400,
        'INVALID_PARAMETER',
      );
      expect(errors.map((e) => e.field)).toEqual(['errorMessage']);
      await expectUnchanged(pending, before);
    });

    it('refuses an unknown merchantId with 400 naming merchantId, nothing stored', async () => {
      const key = newKey('unknown_merchant');
      const r = await put(key, { merchantId: 'nobody', status: 'PENDING' });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors).toEqual([
        expect.objectContaining({ type: 'VALIDATION', field: 'merchantId' }),
      ]);
      expectEnvelope(await status(key), 404, 'TRANSACTION_FAILED');
    });

    it('judges a report of an existing session by the session: an unknown merchantId is a 409, not an unknown merchant', async () => {
      const key = newKey('known_session_unknown_merchant');
      await create(key, reportOf('PENDING'));
      const before = await snapshot(key);
      const r = await put(key, { merchantId: 'nobody', status: 'PENDING' });
      const errors = expectEnvelope(r, 409, 'CONFLICT');
      expect(errors[0].message).toMatch(/belongs to another merchant/);
      await expectUnchanged(key, before);
    });

    it('accepts validation keys of up to 255 characters end to end', async () => {
      for (const length of [101, 255]) {
        const key = `vk_long_${length}_`.padEnd(length, 'x');
        expect(key).toHaveLength(length);
        const created = await put(key, reportOf('PENDING'));
        expect({ length, status: created.status }).toEqual({ length, status: 201 });
        expect(created.body.validationKey).toBe(key);
        const moved = await put(key, reportOf('SUCCESSFUL'));
        expect({ length, status: moved.status }).toEqual({ length, status: 200 });
        const s = await status(key);
        expect({ length, status: s.status }).toEqual({ length, status: 200 });
        expect(s.body.payload[0].paymentResponse.validationKey).toBe(key);
        const h = await history(key);
        expect({ length, status: h.status }).toEqual({ length, status: 200 });
        expect(h.body.payload).toHaveLength(2);
      }
    });

    it('serves the status of a stored session whose key has 255 characters', async () => {
      const key = 'vk_seeded_long_'.padEnd(255, 'y');
      await t.seed({
        paymentSessions: [{ validationKey: key, merchantId: MERCHANT, status: 'PENDING' }],
      });
      const s = await status(key);
      expect(s.status).toBe(200);
      expect(s.body).toEqual({ payload: [{ status: 'PENDING' }] });
    });

    it('refuses a validation key longer than 255 characters with 400 naming validationKey', async () => {
      const r = await put('k'.repeat(256), reportOf('PENDING'));
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors).toEqual([expect.objectContaining({ field: 'validationKey' })]);
    });
  });

  describe('the payment response', () => {
    it('masks accountNumber when it is stored; the clear value never reaches the database', async () => {
      const key = newKey('masked');
      const clear = 'IE29AIBK93115212345678';
      const masked = 'IE29XXXXXXXXXXXXXX5678';
      const r = await create(
        key,
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ accountNumber: clear }),
        }),
      );
      expect(r.body.payload[0].paymentResponse.accountNumber).toBe(masked);
      expect(r.text).not.toContain(clear);

      const s = await status(key);
      expect(s.body.payload[0].paymentResponse.accountNumber).toBe(masked);
      expect(s.text).not.toContain(clear);

      const bytes = await t.dump();
      expect(bytes).toContain(masked);
      expect(bytes).not.toContain(clear);
      expect(bytes).not.toContain('AIBK93115212');
    });

    it('carries the session’s own validationKey and every field it was given', async () => {
      const key = newKey('fields');
      const given = completePaymentResponse();
      await create(key, reportOf('SUCCESSFUL', { paymentResponse: given }));
      const s = await status(key);
      const response = s.body.payload[0].paymentResponse;
      expect(Object.keys(response)).toEqual(Object.keys(PAYMENT_RESPONSE_FIELDS));
      for (const [field, kind] of Object.entries(PAYMENT_RESPONSE_FIELDS)) {
        const value = (given as Record<string, { amount: string; currency: string }>)[field];
        if (kind === 'sessionKey') expect(response[field]).toBe(key);
        if (kind === 'text') expect(response[field]).toBe(value);
        if (kind === 'masked') expect(response[field]).toBe(maskAccountNumber(String(value)));
        if (kind === 'money') {
          expect(response[field]).toEqual({
            amount: Number(value.amount),
            currency: value.currency,
            presentationAmount: `${value.currency}${value.amount}`,
          });
        }
      }
    });
  });

  describe('concurrency', () => {
    it('of 20 concurrent conflicting final reports exactly one wins; the others get 409', async () => {
      const key = newKey('race');
      await create(key, reportOf('PENDING'));

      const reports = Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? reportOf('SUCCESSFUL', {
              paymentResponse: successfulResponse({ traceId: `TRC-RACE-${i}` }),
            })
          : reportOf('FAILED', { errorMessage: `Declined by bank ${i}` }),
      );
      const results = await Promise.all(reports.map((body) => put(key, body)));

      const statuses = results.map((r) => r.status);
      expect(statuses.filter((code) => code >= 500)).toEqual([]);
      expect(statuses.filter((code) => code === 200)).toHaveLength(1);
      expect(statuses.filter((code) => code === 409)).toHaveLength(19);
      for (const r of results.filter((r) => r.status === 409)) expectEnvelope(r, 409, 'CONFLICT');

      const winner = results.find((r) => r.status === 200)!;
      expect(winner.body.outcome).toBe('updated');
      const s = await status(key);
      expect(s.body).toEqual({ payload: winner.body.payload });

      const h = await history(key);
      expect(h.body.payload).toHaveLength(2);
      expect(h.body.payload[1].from).toBe('PENDING');
      expect(h.body.payload[1].to).toBe(winner.body.payload[0].status);
    });
  });

  describe('the operator view', () => {
    it("shows callback URLs whole only to roles that see personal data; their query may hold a merchant's token", async () => {
      const key = newKey('view_urls');
      await create(
        key,
        reportOf('PENDING', {
          returnUrl: 'https://shop.example/return?token=s3cr3t#top',
          errorUrl: 'https://shop.example/error?token=s3cr3t',
        }),
      );
      const detail = (headers: Record<string, string>) =>
        http(`${t.url}/admin/payment-sessions/${key}`, { headers });
      const whole = await detail(adminHeaders);
      expect(whole.body.returnUrl).toBe('https://shop.example/return?token=s3cr3t#top');
      expect(whole.body.errorUrl).toBe('https://shop.example/error?token=s3cr3t');
      for (const role of ['viewer', 'catalog']) {
        const operator = await createOperator(t, `urls-${role}`, role);
        const seen = await detail({ authorization: `Bearer ${operator.token}` });
        expect(seen.status).toBe(200);
        expect(seen.body.returnUrl).toBe('https://shop.example/return');
        expect(seen.body.errorUrl).toBe('https://shop.example/error');
        expect(seen.text).not.toContain('s3cr3t');
      }
    });
  });

  describe('history', () => {
    it('lists every transition in order with from, to, detailedStatus and at', async () => {
      const key = newKey('history');
      await create(key, { merchantId: MERCHANT, status: 'NOT_COMPLETED' });
      await put(key, reportOf('PENDING'));
      await put(key, reportOf('NOT_COMPLETED', { detailedStatus: 'WAITING_FOR_FUNDS' }));
      await put(key, reportOf('FAILED', { detailedStatus: 'INSUFFICIENT_FUNDS' }));
      await put(key, reportOf('FAILED', { detailedStatus: 'INSUFFICIENT_FUNDS' })); // no-op
      await put(key, reportOf('PENDING')); // refused

      const h = await history(key);
      expect(h.status).toBe(200);
      expect(h.body.validationKey).toBe(key);
      const entries = h.body.payload as {
        from: string | null;
        to: string;
        detailedStatus?: string;
        at: string;
      }[];
      // Each made by the operator of ADMIN_TOKEN.
      const by = { kind: 'operator', id: 'root', name: 'root' };
      expect(entries.map(({ at: _at, ...rest }) => rest)).toEqual([
        { from: null, to: 'NOT_COMPLETED', by },
        { from: 'NOT_COMPLETED', to: 'PENDING', by },
        { from: 'PENDING', to: 'NOT_COMPLETED', detailedStatus: 'WAITING_FOR_FUNDS', by },
        { from: 'NOT_COMPLETED', to: 'FAILED', detailedStatus: 'INSUFFICIENT_FUNDS', by },
      ]);
      for (const entry of entries) {
        expect(entry.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
        expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
        expect(entry).not.toHaveProperty('detailedStatus', null);
      }
      const times = entries.map((e) => Date.parse(e.at));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    });

    it('answers the history of an unknown session with 404 NOT_FOUND', async () => {
      const r = await history(newKey('no_history'));
      expectEnvelope(r, 404, 'NOT_FOUND');
    });
  });
});
