import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  adminHeaders,
  expectEnvelope,
  http,
  HttpResult,
  startTestApp,
  successfulResponse,
  TestApp,
} from './support/test-app.js';

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

function databaseBytes(t: TestApp): string {
  const file = join(t.dir, 'gateway.sqlite');
  let text = readFileSync(file).toString('utf8');
  if (existsSync(file + '-wal')) text += readFileSync(file + '-wal').toString('utf8');
  return text;
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
    t = await startTestApp({ RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '10000' });
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

    it.each([
      ['NOT_COMPLETED', 'SUCCESSFUL'],
      ['NOT_COMPLETED', 'FAILED'],
      ['NOT_COMPLETED', 'PENDING'],
      ['NOT_COMPLETED', 'NOT_COMPLETED'],
      ['PENDING', 'SUCCESSFUL'],
      ['PENDING', 'FAILED'],
      ['PENDING', 'NOT_COMPLETED'],
    ] as [Status, Status][])('moves %s to %s with 200 outcome updated', async (from, to) => {
      const key = newKey(`move_${from}_${to}`);
      // Created without detailedStatus, so NOT_COMPLETED -> NOT_COMPLETED (with one) is a change.
      await create(key, { merchantId: MERCHANT, status: from });
      const r = await put(key, reportOf(to));
      expect(r.status).toBe(200);
      expect(r.body.outcome).toBe('updated');
      expect(r.body.version).toBe(2);
      expect(r.body.payload).toHaveLength(1);
      expect(r.body.payload[0].status).toBe(to);

      const s = await status(key);
      expect(s.status).toBe(200);
      expect(s.body).toEqual({ payload: r.body.payload });

      const h = await history(key);
      expect(h.status).toBe(200);
      expect(
        h.body.payload.map((e: { from: string | null; to: string }) => [e.from, e.to]),
      ).toEqual([
        [null, from],
        [from, to],
      ]);
    });

    it('a non-final session can move several times', async () => {
      const key = newKey('several');
      await create(key, reportOf('NOT_COMPLETED'));
      for (const next of ['PENDING', 'NOT_COMPLETED', 'PENDING', 'SUCCESSFUL'] as Status[]) {
        const r = await put(key, reportOf(next));
        expect(r.status).toBe(200);
        expect(r.body.outcome).toBe('updated');
      }
      const h = await history(key);
      expect(h.body.payload).toHaveLength(5);
      expect((await status(key)).body.payload[0].status).toBe('SUCCESSFUL');
    });

    it('repeating an identical non-final report changes nothing', async () => {
      const key = newKey('pending_repeat');
      await create(key, reportOf('PENDING'));
      const r = await put(key, reportOf('PENDING'));
      expect(r.status).toBe(200);
      expect(r.body.outcome).toBe('unchanged');
      expect(r.body.version).toBe(1);
      expect((await history(key)).body.payload).toHaveLength(1);
    });
  });

  describe('final states', () => {
    it.each(['SUCCESSFUL', 'FAILED'] as Status[])(
      'repeating the identical %s report is a 200 no-op without a new history entry',
      async (final) => {
        const key = newKey(`repeat_${final}`);
        await create(key, reportOf('PENDING'));
        const moved = await put(key, reportOf(final));
        expect(moved.status).toBe(200);
        expect(moved.body.outcome).toBe('updated');
        const before = await snapshot(key);
        expect(before.entries).toBe(2);

        const again = await put(key, reportOf(final));
        expect(again.status).toBe(200);
        expect(again.body.outcome).toBe('unchanged');
        expect(again.body.version).toBe(moved.body.version);
        expect(again.body.payload).toEqual(moved.body.payload);
        await expectUnchanged(key, before);
      },
    );

    const changesOfSuccessful: [string, Record<string, unknown>][] = [
      ['PENDING', reportOf('PENDING')],
      ['NOT_COMPLETED', reportOf('NOT_COMPLETED')],
      ['FAILED', reportOf('FAILED')],
      [
        'SUCCESSFUL with another traceId',
        reportOf('SUCCESSFUL', { paymentResponse: successfulResponse({ traceId: 'TRC-2' }) }),
      ],
      [
        'SUCCESSFUL with another amount',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ money: { amount: 148.51, currency: 'EUR' } }),
        }),
      ],
      ['SUCCESSFUL for another merchant', reportOf('SUCCESSFUL', { merchantId: OTHER_MERCHANT })],
    ];
    it.each(changesOfSuccessful)(
      'refuses to change a SUCCESSFUL session to %s with 409 and changes nothing',
      async (_label, body) => {
        const key = newKey('final_successful');
        await create(key, reportOf('PENDING'));
        expect((await put(key, reportOf('SUCCESSFUL'))).status).toBe(200);
        const before = await snapshot(key);

        const r = await put(key, body);
        const errors = expectEnvelope(r, 409, 'CONFLICT');
        expect(errors[0].type).toBe('FATAL');
        await expectUnchanged(key, before);
      },
    );

    const changesOfFailed: [string, Record<string, unknown>][] = [
      ['PENDING', reportOf('PENDING')],
      ['NOT_COMPLETED', reportOf('NOT_COMPLETED')],
      ['SUCCESSFUL', reportOf('SUCCESSFUL')],
      ['FAILED with another errorMessage', reportOf('FAILED', { errorMessage: 'Card expired' })],
      ['FAILED with another detailedStatus', reportOf('FAILED', { detailedStatus: 'EXPIRED' })],
      [
        'FAILED without detailedStatus',
        {
          merchantId: MERCHANT,
          status: 'FAILED',
          errorMessage: 'Insufficient funds in source wallet',
        },
      ],
    ];
    it.each(changesOfFailed)(
      'refuses to change a FAILED session to %s with 409 and changes nothing',
      async (_label, body) => {
        const key = newKey('final_failed');
        await create(key, reportOf('FAILED'));
        const before = await snapshot(key);

        const r = await put(key, body);
        expectEnvelope(r, 409, 'CONFLICT');
        await expectUnchanged(key, before);
      },
    );
  });

  describe('required fields per status', () => {
    const invalid: [string, Record<string, unknown>, string[]][] = [
      [
        'SUCCESSFUL without paymentResponse',
        { merchantId: MERCHANT, status: 'SUCCESSFUL' },
        ['paymentResponse'],
      ],
      [
        'SUCCESSFUL without transactionReference',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ transactionReference: undefined }),
        }),
        ['paymentResponse.transactionReference'],
      ],
      [
        'SUCCESSFUL with a non-UUID transactionReference',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ transactionReference: 'TX-12345' }),
        }),
        ['paymentResponse.transactionReference'],
      ],
      [
        'SUCCESSFUL without money and traceId',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ money: undefined, traceId: undefined }),
        }),
        ['paymentResponse.money', 'paymentResponse.traceId'],
      ],
      [
        'SUCCESSFUL without sourceMoney, destinationMoney and totalFees',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({
            sourceMoney: undefined,
            destinationMoney: undefined,
            totalFees: undefined,
          }),
        }),
        [
          'paymentResponse.destinationMoney',
          'paymentResponse.sourceMoney',
          'paymentResponse.totalFees',
        ],
      ],
      ['FAILED without errorMessage', { merchantId: MERCHANT, status: 'FAILED' }, ['errorMessage']],
      [
        'PENDING with an errorMessage',
        { merchantId: MERCHANT, status: 'PENDING', errorMessage: 'nope' },
        ['errorMessage'],
      ],
      [
        'PENDING with a paymentResponse',
        { merchantId: MERCHANT, status: 'PENDING', paymentResponse: successfulResponse() },
        ['paymentResponse'],
      ],
      ['an unknown status', { merchantId: MERCHANT, status: 'DONE' }, ['status']],
      ['no status and no merchantId', {}, ['merchantId', 'status']],
      [
        'a money amount with 3 decimals',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ money: { amount: 148.505, currency: 'EUR' } }),
        }),
        ['paymentResponse.money.amount'],
      ],
      [
        'a money amount with 3 decimals as text',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ money: { amount: '148.505', currency: 'EUR' } }),
        }),
        ['paymentResponse.money.amount'],
      ],
      [
        'a negative money amount',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ money: { amount: -1, currency: 'EUR' } }),
        }),
        ['paymentResponse.money.amount'],
      ],
      [
        'a negative amount in sourceMoney and 3 decimals in totalFees',
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({
            sourceMoney: { amount: -150, currency: 'EUR' },
            totalFees: { amount: 1.555, currency: 'EUR' },
          }),
        }),
        ['paymentResponse.sourceMoney.amount', 'paymentResponse.totalFees.amount'],
      ],
    ];

    it.each(invalid)(
      'refuses a new session with %s: 400 per field, nothing stored',
      async (_label, body, fields) => {
        const key = newKey('invalid_new');
        const r = await put(key, body);
        const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
        expect(errors.map((e) => e.field).sort()).toEqual([...fields].sort());
        for (const error of errors) expect(error.type).toBe('VALIDATION');

        expectEnvelope(await status(key), 404, 'TRANSACTION_FAILED');
        expectEnvelope(await history(key), 404, 'NOT_FOUND');
      },
    );

    it.each(invalid)(
      'refuses to move a PENDING session with %s: 400 per field, nothing changed',
      async (_label, body, fields) => {
        const key = newKey('invalid_move');
        await create(key, reportOf('PENDING'));
        const before = await snapshot(key);
        const r = await put(key, body);
        const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
        expect(errors.map((e) => e.field).sort()).toEqual([...fields].sort());
        await expectUnchanged(key, before);
      },
    );

    it('refuses an unknown merchantId with 400 naming merchantId, nothing stored', async () => {
      const key = newKey('unknown_merchant');
      const r = await put(key, { merchantId: 'nobody', status: 'PENDING' });
      const errors = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect(errors).toEqual([
        expect.objectContaining({ type: 'VALIDATION', field: 'merchantId' }),
      ]);
      expectEnvelope(await status(key), 404, 'TRANSACTION_FAILED');
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

      const bytes = databaseBytes(t);
      expect(bytes).toContain(masked);
      expect(bytes).not.toContain(clear);
      expect(bytes).not.toContain('AIBK93115212');
    });

    it('masks a short accountNumber all but the last 4', async () => {
      const key = newKey('masked_short');
      await create(
        key,
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({ accountNumber: '12345678' }),
        }),
      );
      const s = await status(key);
      expect(s.body.payload[0].paymentResponse.accountNumber).toBe('XXXX5678');
    });

    it('presents money exactly, with two decimals and no separators', async () => {
      const key = newKey('money');
      await create(
        key,
        reportOf('SUCCESSFUL', {
          paymentResponse: successfulResponse({
            money: { amount: 1234567.5, currency: 'EUR' },
            sourceMoney: { amount: '0.1', currency: 'eur' },
            totalFees: { amount: 0, currency: 'EUR' },
            requestedMoney: { amount: 19.99, currency: 'EUR' },
          }),
        }),
      );
      const s = await status(key);
      const response = s.body.payload[0].paymentResponse;
      expect(response.money).toEqual({
        amount: 1234567.5,
        currency: 'EUR',
        presentationAmount: 'EUR1234567.50',
      });
      expect(response.sourceMoney).toEqual({
        amount: 0.1,
        currency: 'EUR',
        presentationAmount: 'EUR0.10',
      });
      expect(response.totalFees).toEqual({
        amount: 0,
        currency: 'EUR',
        presentationAmount: 'EUR0.00',
      });
      expect(response.requestedMoney).toEqual({
        amount: 19.99,
        currency: 'EUR',
        presentationAmount: 'EUR19.99',
      });
      expect(response.destinationMoney).toEqual({
        amount: 161.37,
        currency: 'USDT',
        presentationAmount: 'USDT161.37',
      });
      expect(s.text).toContain('"presentationAmount":"EUR1234567.50"');
    });

    it('carries the session’s own validationKey and every given field', async () => {
      const key = newKey('fields');
      const given = successfulResponse({
        description: 'Payout to wallet',
        clientReference: 'order-1042',
        responseCode: '00',
        paymentType: 'PAYOUT',
        paymentMethod: 'CRYPTO',
        customerAccountNumber: 'TXYZ1234567890ABCDEF',
        customerDob: '1990-04-23',
        customerFirstName: 'Aoife',
        customerLastName: 'Murphy',
        senderEmailAddress: 'aoife.murphy@example.com',
        customerCountryCode: 'IE',
      });
      await create(key, reportOf('SUCCESSFUL', { paymentResponse: given }));
      const s = await status(key);
      const response = s.body.payload[0].paymentResponse;
      expect(response.validationKey).toBe(key);
      for (const field of [
        'traceId',
        'transactionReference',
        'description',
        'clientReference',
        'responseCode',
        'paymentType',
        'paymentMethod',
        'customerAccountNumber',
        'customerDob',
        'customerFirstName',
        'customerLastName',
        'senderEmailAddress',
        'customerCountryCode',
      ]) {
        expect(response[field]).toBe(given[field]);
      }
      expect(Object.values(response)).not.toContain(null);
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
      expect(entries.map(({ at: _at, ...rest }) => rest)).toEqual([
        { from: null, to: 'NOT_COMPLETED' },
        { from: 'NOT_COMPLETED', to: 'PENDING' },
        { from: 'PENDING', to: 'NOT_COMPLETED', detailedStatus: 'WAITING_FOR_FUNDS' },
        { from: 'NOT_COMPLETED', to: 'FAILED', detailedStatus: 'INSUFFICIENT_FUNDS' },
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
