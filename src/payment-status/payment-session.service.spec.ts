import { InMemoryAuditEvents } from '../../test/fakes/in-memory-audit.js';
import { successfulResponse } from '../../test/support/fixtures.js';
import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryPaymentSessions } from '../../test/fakes/in-memory-payment-sessions.js';
import { InMemoryCallbackOutbox } from '../../test/fakes/in-memory-callback-outbox.js';
import { InMemoryTransactions } from '../../test/fakes/in-memory-transactions.js';
import { ApiError } from '../common/errors/api-error.js';
import { apiErrorOf } from '../../test/support/api-error-of.js';
import { merchantServices } from '../../test/fakes/merchant-services.js';
import type { OperatorCall } from '../access/operator-call.js';
import type { PaymentReportDto } from './dto/payment-report.dto.js';
import { MAX_REPORT_ATTEMPTS } from './payment-session.service.js';
import { toStoredReport } from './payment-report.rules.js';
import type { PaymentStatus } from './payment-status.types.js';
import { testAuditTrail, testPaymentSessionService } from '../../test/fakes/no-op-ports.js';

const MERCHANT = 'acme';
const OTHER = 'globex';

function reportOf(status: PaymentStatus, extra: Record<string, unknown> = {}): PaymentReportDto {
  const base: Record<PaymentStatus, Record<string, unknown>> = {
    SUCCESSFUL: { paymentResponse: successfulResponse() },
    FAILED: { errorMessage: 'Insufficient funds', detailedStatus: 'INSUFFICIENT_FUNDS' },
    NOT_COMPLETED: { detailedStatus: 'ABANDONED_BY_USER' },
    PENDING: {},
  };
  return { merchantId: MERCHANT, status, ...base[status], ...extra } as PaymentReportDto;
}

async function setup() {
  const merchantStore = new InMemoryMerchants();
  const sessions = new InMemoryPaymentSessions();
  const outbox = new InMemoryCallbackOutbox();
  const events = new InMemoryAuditEvents();
  const transactions = new InMemoryTransactions(sessions, merchantStore, outbox, events);
  const { merchants } = merchantServices(merchantStore, transactions);
  await merchants.createMerchant({ id: MERCHANT, name: 'Acme' });
  await merchants.createMerchant({ id: OTHER, name: 'Globex' });
  const audit = testAuditTrail(events, transactions);
  const service = testPaymentSessionService(sessions, merchants, transactions, outbox, audit);
  return { service, sessions, transactions, outbox, events, audit };
}

const STATUSES: PaymentStatus[] = ['PENDING', 'NOT_COMPLETED', 'SUCCESSFUL', 'FAILED'];
const FINALS: PaymentStatus[] = ['SUCCESSFUL', 'FAILED'];

describe('PaymentSessionService: the state machine', () => {
  it.each(STATUSES)('creates a session directly in %s, version 1, one transition', async (to) => {
    const { service, sessions } = await setup();
    const result = await service.report('vk_1', reportOf(to));
    expect(result.outcome).toBe('created');
    expect(result.session).toMatchObject({
      validationKey: 'vk_1',
      merchantId: MERCHANT,
      version: 1,
    });
    expect(sessions.stored('vk_1')?.status).toBe(to);
    expect(await service.history('vk_1')).toEqual([
      expect.objectContaining({ version: 1, fromStatus: null, toStatus: to }),
    ]);
  });

  // PENDING -> PENDING is the identical report: a no-op, tested below.
  const moves = STATUSES.filter((s) => !FINALS.includes(s))
    .flatMap((from) => STATUSES.map((to) => [from, to] as const))
    .filter(([from, to]) => !(from === 'PENDING' && to === 'PENDING'));
  it.each(moves)('moves a %s session to %s (version 2, transition recorded)', async (from, to) => {
    const { service, sessions } = await setup();
    // Created without detailedStatus, so NOT_COMPLETED -> NOT_COMPLETED (with one) is a change.
    await service.report('vk_1', { merchantId: MERCHANT, status: from } as PaymentReportDto);
    const result = await service.report('vk_1', reportOf(to));
    expect(result.outcome).toBe('updated');
    expect(result.session.version).toBe(2);
    expect(sessions.stored('vk_1')).toMatchObject({ status: to, version: 2 });
    const history = await service.history('vk_1');
    expect(history?.map((t) => [t.fromStatus, t.toStatus, t.version])).toEqual([
      [null, from, 1],
      [from, to, 2],
    ]);
  });

  it('moves a non-final session several times, one transition each', async () => {
    const { service } = await setup();
    await service.report('vk_1', reportOf('NOT_COMPLETED'));
    for (const next of ['PENDING', 'NOT_COMPLETED', 'PENDING', 'SUCCESSFUL'] as PaymentStatus[]) {
      expect((await service.report('vk_1', reportOf(next))).outcome).toBe('updated');
    }
    expect(await service.history('vk_1')).toHaveLength(5);
  });

  it.each(STATUSES)('treats the identical %s report again as a no-op', async (status) => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf(status));
    const before = structuredClone(sessions.stored('vk_1'));
    const again = await service.report('vk_1', reportOf(status));
    expect(again.outcome).toBe('unchanged');
    expect(again.session.version).toBe(1);
    expect(sessions.stored('vk_1')).toEqual(before);
    expect(await service.history('vk_1')).toHaveLength(1);
  });

  it('treats the same amounts written differently as the same report', async () => {
    const { service } = await setup();
    await service.report('vk_1', reportOf('SUCCESSFUL'));
    const rewritten = reportOf('SUCCESSFUL', {
      paymentResponse: successfulResponse({ money: { amount: '148.50', currency: 'eur' } }),
    });
    rewritten.paymentResponse!.money!.currency = 'EUR';
    expect((await service.report('vk_1', rewritten)).outcome).toBe('unchanged');
  });

  const changesOfFinal: [PaymentStatus, string, PaymentReportDto][] = [
    ['SUCCESSFUL', 'PENDING', reportOf('PENDING')],
    ['SUCCESSFUL', 'NOT_COMPLETED', reportOf('NOT_COMPLETED')],
    ['SUCCESSFUL', 'FAILED', reportOf('FAILED')],
    [
      'SUCCESSFUL',
      'SUCCESSFUL with another traceId',
      reportOf('SUCCESSFUL', { paymentResponse: successfulResponse({ traceId: 'TRC-2' }) }),
    ],
    [
      'SUCCESSFUL',
      'SUCCESSFUL with another amount',
      reportOf('SUCCESSFUL', {
        paymentResponse: successfulResponse({ money: { amount: 148.51, currency: 'EUR' } }),
      }),
    ],
    ['FAILED', 'PENDING', reportOf('PENDING')],
    ['FAILED', 'NOT_COMPLETED', reportOf('NOT_COMPLETED')],
    ['FAILED', 'SUCCESSFUL', reportOf('SUCCESSFUL')],
    ['FAILED', 'FAILED with another errorMessage', reportOf('FAILED', { errorMessage: 'Expired' })],
    ['FAILED', 'FAILED with another detailedStatus', reportOf('FAILED', { detailedStatus: 'X' })],
    [
      'FAILED',
      'FAILED without detailedStatus',
      { merchantId: MERCHANT, status: 'FAILED', errorMessage: 'Insufficient funds' },
    ],
  ];
  it.each(changesOfFinal)(
    'refuses to change a %s session to %s: 409 CONFLICT, nothing stored',
    async (final, _label, change) => {
      const { service, sessions } = await setup();
      await service.report('vk_1', reportOf(final));
      const before = structuredClone(sessions.stored('vk_1'));
      const error = await apiErrorOf(service.report('vk_1', change));
      expect(error.code).toBe('CONFLICT');
      expect(error.items[0].field).toBe('status');
      expect(sessions.stored('vk_1')).toEqual(before);
      expect(await service.history('vk_1')).toHaveLength(1);
    },
  );

  it("refuses another merchant's report on a session with 409 naming merchantId", async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    const error = await apiErrorOf(
      service.report('vk_1', reportOf('SUCCESSFUL', { merchantId: OTHER })),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.items[0].field).toBe('merchantId');
    expect(sessions.stored('vk_1')?.status).toBe('PENDING');
  });

  it('refuses an unknown merchant with 400 naming merchantId, nothing stored', async () => {
    const { service, sessions } = await setup();
    const error = await apiErrorOf(
      service.report('vk_1', { merchantId: 'nobody', status: 'PENDING' } as PaymentReportDto),
    );
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.items.map((i) => i.field)).toEqual(['merchantId']);
    expect(sessions.stored('vk_1')).toBeUndefined();
  });

  it.each([
    ['SUCCESSFUL without paymentResponse', { status: 'SUCCESSFUL' }, ['paymentResponse']],
    ['FAILED without errorMessage', { status: 'FAILED' }, ['errorMessage']],
    ['PENDING with an errorMessage', { status: 'PENDING', errorMessage: 'no' }, ['errorMessage']],
  ])('refuses %s with 400 per field, before touching storage', async (_label, body, fields) => {
    const { service, transactions, sessions } = await setup();
    const committed = transactions.committed;
    const error = await apiErrorOf(
      service.report('vk_1', { merchantId: MERCHANT, ...body } as PaymentReportDto),
    );
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.items.map((i) => i.field)).toEqual(fields);
    expect(sessions.stored('vk_1')).toBeUndefined();
    expect(transactions.committed).toBe(committed);
  });

  it.each([0, 256])('refuses a validation key of %i characters with 400', async (length) => {
    const { service } = await setup();
    const error = await apiErrorOf(service.report('k'.repeat(length), reportOf('PENDING')));
    expect(error.items.map((i) => i.field)).toEqual(['validationKey']);
  });
});

describe('PaymentSessionService: concurrent writers', () => {
  it('judges a report again when another writer moved the session first', async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    // Between this report's read and its write, another writer makes the session FAILED.
    sessions.beforeNextWrite = () =>
      sessions.put({
        ...sessions.stored('vk_1')!,
        ...toStoredReport(reportOf('FAILED')),
        version: 2,
      });
    const error = await apiErrorOf(service.report('vk_1', reportOf('SUCCESSFUL')));
    expect(error.code).toBe('CONFLICT');
    expect(sessions.stored('vk_1')).toMatchObject({ status: 'FAILED', version: 2 });
  });

  it('applies a report again after losing a race that left it valid', async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    sessions.beforeNextWrite = () =>
      sessions.put({
        ...sessions.stored('vk_1')!,
        ...toStoredReport(reportOf('NOT_COMPLETED')),
        version: 2,
      });
    const result = await service.report('vk_1', reportOf('SUCCESSFUL'));
    expect(result.outcome).toBe('updated');
    expect(sessions.stored('vk_1')).toMatchObject({ status: 'SUCCESSFUL', version: 3 });
  });

  it('judges a creation against the session another writer created first', async () => {
    const { service, sessions } = await setup();
    sessions.beforeNextWrite = () =>
      sessions.put({
        validationKey: 'vk_1',
        merchantId: MERCHANT,
        ...toStoredReport(reportOf('SUCCESSFUL')),
        returnUrl: null,
        errorUrl: null,
        version: 1,
      });
    const same = await service.report('vk_1', reportOf('SUCCESSFUL'));
    expect(same.outcome).toBe('unchanged');
  });

  it(`answers 409 after ${MAX_REPORT_ATTEMPTS} lost races, having stored nothing`, async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    let version = 1;
    let races = 0;
    const interfere = () => {
      races++;
      version++;
      sessions.put({ ...sessions.stored('vk_1')!, version });
      sessions.beforeNextWrite = interfere;
    };
    sessions.beforeNextWrite = interfere;
    const error = await apiErrorOf(service.report('vk_1', reportOf('SUCCESSFUL')));
    expect(error.code).toBe('CONFLICT');
    expect(races).toBe(MAX_REPORT_ATTEMPTS);
    expect(sessions.stored('vk_1')?.status).toBe('PENDING');
  });

  it('of concurrent conflicting final reports, exactly one wins', async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    // All different: an identical repeat of the winner would be a no-op, not a conflict.
    const reports = Array.from({ length: 10 }, (_, i) =>
      service.report(
        'vk_1',
        i % 2
          ? reportOf('FAILED', { errorMessage: `Declined ${i}` })
          : reportOf('SUCCESSFUL', { paymentResponse: successfulResponse({ traceId: `T-${i}` }) }),
      ),
    );
    const results = await Promise.allSettled(reports);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const lost of results.filter((r) => r.status === 'rejected')) {
      expect((lost.reason as ApiError).code).toBe('CONFLICT');
    }
    expect(await service.history('vk_1')).toHaveLength(2);
    expect(sessions.stored('vk_1')?.version).toBe(2);
  });
});

describe('PaymentSessionService: reports that arrive together', () => {
  const operator = (requestId: string): OperatorCall => ({
    operator: { kind: 'operator', id: 'op-1', name: 'Ann' },
    action: 'payment-session.report',
    requestId,
    status: 200,
  });

  it('applies reports of distinct sessions in one transaction, each with its own outcome', async () => {
    const { service, sessions, transactions, outbox, events, audit } = await setup();
    await service.report('vk_final', reportOf('FAILED'));
    const committed = transactions.committed;
    const results = await Promise.allSettled([
      service.report(
        'vk_1',
        reportOf('SUCCESSFUL', { returnUrl: 'https://shop.test/ok' }),
        operator('r1'),
      ),
      service.report('vk_final', reportOf('SUCCESSFUL'), operator('r2')),
      service.report('vk_2', reportOf('PENDING'), operator('r3')),
      service.report('vk_3', reportOf('PENDING', { merchantId: 'nobody' }), operator('r4')),
      service.report(
        'vk_4',
        reportOf('FAILED', { errorUrl: 'https://shop.test/ko' }),
        operator('r5'),
      ),
    ]);
    expect(transactions.committed).toBe(committed + 1);
    expect(
      results.map((r) =>
        r.status === 'fulfilled' ? r.value.outcome : (r.reason as ApiError).code,
      ),
    ).toEqual(['created', 'CONFLICT', 'created', 'INVALID_PARAMETER', 'created']);
    expect(sessions.stored('vk_1')).toMatchObject({ status: 'SUCCESSFUL', version: 1 });
    expect(sessions.stored('vk_final')).toMatchObject({ status: 'FAILED', version: 1 });
    expect(sessions.stored('vk_3')).toBeUndefined();
    expect(outbox.callbacks.map((c) => [c.validationKey, c.url])).toEqual([
      ['vk_1', 'https://shop.test/ok'],
      ['vk_4', 'https://shop.test/ko'],
    ]);
    // One event per change, in the order the reports arrived, chained.
    expect(events.all().map((e) => [e.target, e.requestId, e.outcome])).toEqual([
      ['vk_1', 'r1', 201],
      ['vk_2', 'r3', 201],
      ['vk_4', 'r5', 201],
    ]);
    expect(await audit.verify()).toMatchObject({ valid: true, events: 3 });
  });

  it('applies two reports of one session that arrive together one after the other', async () => {
    const { service, transactions } = await setup();
    const committed = transactions.committed;
    const [first, second] = await Promise.all([
      service.report('vk_1', reportOf('PENDING')),
      service.report('vk_1', reportOf('SUCCESSFUL')),
    ]);
    expect([first.outcome, second.outcome]).toEqual(['created', 'updated']);
    expect(transactions.committed).toBe(committed + 2);
    expect((await service.history('vk_1'))?.map((t) => t.toStatus)).toEqual([
      'PENDING',
      'SUCCESSFUL',
    ]);
  });

  it('applies each report of a batch alone after a fault that is not the database refusing', async () => {
    const { service, sessions, transactions } = await setup();
    sessions.beforeNextWrite = () => {
      throw new TypeError('a fault of one report');
    };
    const rolledBack = transactions.rolledBack;
    const results = await Promise.all([
      service.report('vk_1', reportOf('PENDING')),
      service.report('vk_2', reportOf('FAILED')),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['created', 'created']);
    expect(transactions.rolledBack).toBe(rolledBack + 1);
    expect(sessions.stored('vk_2')?.status).toBe('FAILED');
  });

  it('answers every report of a batch the database refused with that refusal, trying none again', async () => {
    const { service, sessions, transactions } = await setup();
    const refusal = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    sessions.beforeNextWrite = () => {
      throw refusal;
    };
    const committed = transactions.committed;
    const results = await Promise.allSettled([
      service.report('vk_1', reportOf('PENDING')),
      service.report('vk_2', reportOf('FAILED')),
    ]);
    expect(results.map((r) => r.status === 'rejected' && r.reason)).toEqual([refusal, refusal]);
    expect(transactions.committed).toBe(committed);
    expect(sessions.stored('vk_1')).toBeUndefined();
  });

  it('undoes a batch that lost a race whole, and applies each of its reports alone', async () => {
    const { service, sessions, transactions, events } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    // Another writer moves vk_1 while the batch writes: the batch's update finds version 2.
    sessions.beforeNextWrite = () =>
      sessions.put({ ...sessions.stored('vk_1')!, detailedStatus: 'ELSEWHERE', version: 2 });
    const rolledBack = transactions.rolledBack;
    const [created, moved] = await Promise.all([
      service.report('vk_2', reportOf('PENDING'), operator('r1')),
      service.report('vk_1', reportOf('SUCCESSFUL'), operator('r2')),
    ]);
    expect(transactions.rolledBack).toBe(rolledBack + 1);
    expect(created.outcome).toBe('created');
    expect(moved.outcome).toBe('updated');
    expect(sessions.stored('vk_1')).toMatchObject({ status: 'SUCCESSFUL', version: 3 });
    expect(sessions.stored('vk_2')).toMatchObject({ status: 'PENDING', version: 1 });
    expect(events.all().map((e) => e.requestId)).toEqual(['r1', 'r2']);
  });
});

describe('PaymentSessionService: transitions with conditions', () => {
  const WHILE_OPEN = { statuses: ['PENDING', 'NOT_COMPLETED'] as const, conflict: 'Ended.' };

  it('moves a session only from the statuses given, refusing the others with 409', async () => {
    const { service, transactions, sessions, outbox } = await setup();
    await service.report('vk_open', reportOf('NOT_COMPLETED', { returnUrl: 'https://m.test/r' }));
    await service.report('vk_done', reportOf('FAILED'));
    const paid = (validationKey: string) => ({
      validationKey,
      report: reportOf('SUCCESSFUL', {
        paymentResponse: successfulResponse({ traceId: `T-${validationKey}` }),
      }),
    });
    const results = await transactions.run((tx) =>
      service.transition(tx, [paid('vk_open'), paid('vk_done'), paid('vk_none')], {
        callbacks: true,
        actor: { kind: 'system' },
        onlyFrom: WHILE_OPEN,
      }),
    );
    expect(results.map((r) => (r instanceof ApiError ? [r.code, r.message] : r.outcome))).toEqual([
      'updated',
      ['CONFLICT', 'Ended.'],
      ['CONFLICT', 'Ended.'],
    ]);
    expect(sessions.stored('vk_open')).toMatchObject({ status: 'SUCCESSFUL', version: 2 });
    expect(sessions.stored('vk_done')).toMatchObject({ status: 'FAILED', version: 1 });
    expect(sessions.stored('vk_none')).toBeUndefined();
    expect(outbox.callbacks.map((c) => [c.validationKey, c.status])).toEqual([
      ['vk_open', 'NOT_COMPLETED'],
      ['vk_open', 'SUCCESSFUL'],
    ]);
    expect((await service.history('vk_open'))?.[1]).toMatchObject({
      fromStatus: 'NOT_COMPLETED',
      toStatus: 'SUCCESSFUL',
      actor: { kind: 'system' },
    });
  });

  it('given one report, answers its result or throws its refusal', async () => {
    const { service, transactions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    const underpaid = {
      validationKey: 'vk_1',
      report: reportOf('FAILED', { errorMessage: 'Underpaid', detailedStatus: 'UNDERPAID' }),
    };
    const options = {
      callbacks: true,
      onlyFrom: { statuses: ['PENDING'] as const, conflict: 'x' },
    };
    const failed = await transactions.run((tx) => service.transition(tx, underpaid, options));
    expect(failed).toMatchObject({ outcome: 'updated', session: { detailedStatus: 'UNDERPAID' } });
    const again = await apiErrorOf(
      transactions.run((tx) => service.transition(tx, underpaid, options)),
    );
    expect(again.code).toBe('CONFLICT');
  });

  it('with onlyFrom [null] only creates: an existing session is refused', async () => {
    const { service, transactions, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    const createOnly = { callbacks: true, onlyFrom: { statuses: [null], conflict: 'Taken.' } };
    const taken = await apiErrorOf(
      transactions.run((tx) =>
        service.transition(tx, { validationKey: 'vk_1', report: reportOf('PENDING') }, createOnly),
      ),
    );
    expect([taken.code, taken.message]).toEqual(['CONFLICT', 'Taken.']);
    const created = await transactions.run((tx) =>
      service.transition(tx, { validationKey: 'vk_2', report: reportOf('PENDING') }, createOnly),
    );
    expect(created.outcome).toBe('created');
    expect(sessions.stored('vk_1')?.version).toBe(1);
  });
});

describe('PaymentSessionService: the status lookup', () => {
  it('builds the answer of the stored session', async () => {
    const { service } = await setup();
    await service.report('vk_1', reportOf('NOT_COMPLETED'));
    expect(await service.status('vk_1', MERCHANT)).toEqual({
      status: 'NOT_COMPLETED',
      detailedStatus: 'ABANDONED_BY_USER',
    });
  });

  it.each(['PENDING', 'NOT_COMPLETED'] as PaymentStatus[])(
    'reads a %s session afresh on every lookup, so the next report shows at once',
    async (status) => {
      const { service, sessions } = await setup();
      await service.report('vk_1', reportOf(status));
      await service.status('vk_1', MERCHANT);
      await service.report('vk_1', reportOf('FAILED'));
      expect((await service.status('vk_1', MERCHANT))?.status).toBe('FAILED');
      expect(sessions.reads).toBe(2);
    },
  );

  it('never answers a lookup from a read that started before it arrived', async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    let release!: () => void;
    sessions.readsHeld = new Promise<void>((resolve) => (release = resolve));
    const early = service.status('vk_1', MERCHANT);
    // Committed while the early read is pending: every lookup from now on must see it.
    await service.report('vk_1', reportOf('FAILED'));
    const late = [service.status('vk_1', MERCHANT), service.status('vk_1')];
    const otherMerchant = service.status('vk_1', OTHER);
    release();
    expect((await early)?.status).toBe('PENDING');
    for (const element of await Promise.all(late)) expect(element?.status).toBe('FAILED');
    expect(await otherMerchant).toBeUndefined();
    // Each lookup its own read (the repository batches those that arrive together: see
    // src/database/batched-reads.spec.ts).
    expect(sessions.reads).toBe(4);
  });

  it('reads keys independently: a pending read of one key does not hold another', async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING'));
    await service.report('vk_2', reportOf('NOT_COMPLETED'));
    const elements = await Promise.all([
      service.status('vk_1', MERCHANT),
      service.status('vk_2', MERCHANT),
      service.status('vk_nope', MERCHANT),
    ]);
    expect(elements.map((element) => element?.status)).toEqual([
      'PENDING',
      'NOT_COMPLETED',
      undefined,
    ]);
    expect(sessions.reads).toBe(3);
  });

  it.each(FINALS)('keeps the answer of a %s session: one read serves every lookup', async (s) => {
    const { service, sessions } = await setup();
    await service.report('vk_1', reportOf(s));
    const first = await service.status('vk_1', MERCHANT);
    const second = await service.status('vk_1', MERCHANT);
    const third = await service.status('vk_1');
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(sessions.reads).toBe(1);
  });

  it.each(['PENDING', 'NOT_COMPLETED'] as PaymentStatus[])(
    'hands out a fresh, unfrozen answer of a %s session',
    async (status) => {
      const { service } = await setup();
      await service.report('vk_1', reportOf(status));
      const first = await service.status('vk_1', MERCHANT);
      expect(Object.isFrozen(first)).toBe(false);
      expect(await service.status('vk_1', MERCHANT)).not.toBe(first);
    },
  );

  it("answers another merchant's session as a miss, before and after the answer is kept", async () => {
    const { service } = await setup();
    await service.report('vk_1', reportOf('SUCCESSFUL'));
    expect(await service.status('vk_1', OTHER)).toBeUndefined();
    expect(await service.status('vk_1', MERCHANT)).toBeDefined();
    expect(await service.status('vk_1', OTHER)).toBeUndefined();
  });

  it('answers an unknown key as a miss', async () => {
    const { service } = await setup();
    expect(await service.status('vk_nope', MERCHANT)).toBeUndefined();
  });

  it.each([0, 256, 5000])(
    'answers a key of %i characters as a miss without reading storage',
    async (length) => {
      const { service, sessions } = await setup();
      expect(await service.status('k'.repeat(length), MERCHANT)).toBeUndefined();
      expect(sessions.reads).toBe(0);
    },
  );

  it('has no history for an unknown session', async () => {
    const { service } = await setup();
    expect(await service.history('vk_nope')).toBeUndefined();
  });
});

describe('PaymentSessionService: the callbacks transitions cause', () => {
  const RETURN = 'https://merchant.example/return?order=1';
  const ERROR = 'https://merchant.example/error';

  it('stores one callback per transition into SUCCESSFUL, FAILED or NOT_COMPLETED', async () => {
    const { service, outbox } = await setup();
    await service.report('vk_1', reportOf('PENDING', { returnUrl: RETURN, errorUrl: ERROR }));
    expect(outbox.callbacks).toEqual([]);
    await service.report('vk_1', reportOf('NOT_COMPLETED'));
    await service.report('vk_1', reportOf('NOT_COMPLETED')); // identical: no-op, no callback
    await service.report('vk_1', reportOf('NOT_COMPLETED', { detailedStatus: 'TIMED_OUT' }));
    await service.report('vk_1', reportOf('FAILED'));
    await service.report('vk_1', reportOf('FAILED')); // identical final: no-op, no callback
    expect(outbox.callbacks.map((c) => [c.status, c.url])).toEqual([
      ['NOT_COMPLETED', ERROR],
      ['NOT_COMPLETED', ERROR],
      ['FAILED', ERROR],
    ]);
    expect(
      outbox.callbacks.every((c) => c.merchantId === MERCHANT && c.validationKey === 'vk_1'),
    ).toBe(true);
  });

  it('calls SUCCESSFUL back on returnUrl, the others on errorUrl or else returnUrl', async () => {
    const { service, outbox } = await setup();
    await service.report('vk_s', reportOf('SUCCESSFUL', { returnUrl: RETURN, errorUrl: ERROR }));
    await service.report('vk_f', reportOf('FAILED', { returnUrl: RETURN }));
    await service.report('vk_n', reportOf('NOT_COMPLETED', { errorUrl: ERROR }));
    expect(outbox.callbacks.map((c) => [c.validationKey, c.url])).toEqual([
      ['vk_s', RETURN],
      ['vk_f', RETURN],
      ['vk_n', ERROR],
    ]);
  });

  it('stores none without a URL for it, and none when seeding without --callbacks', async () => {
    const { service, outbox, transactions } = await setup();
    await service.report('vk_1', reportOf('SUCCESSFUL', { errorUrl: ERROR }));
    await transactions.run((tx) =>
      service.transition(
        tx,
        { validationKey: 'vk_2', report: reportOf('FAILED', { returnUrl: RETURN }) },
        { callbacks: false },
      ),
    );
    expect(outbox.callbacks).toEqual([]);
  });

  it('writes the flat body: status and validationKey on top, then what the status element holds', async () => {
    const { service, outbox } = await setup();
    await service.report('vk_f', reportOf('FAILED', { returnUrl: RETURN }));
    await service.report('vk_s', reportOf('SUCCESSFUL', { returnUrl: RETURN }));
    expect(JSON.parse(outbox.callbacks[0].body)).toEqual({
      status: 'FAILED',
      validationKey: 'vk_f',
      detailedStatus: 'INSUFFICIENT_FUNDS',
      errorMessage: 'Insufficient funds',
    });
    const successful = JSON.parse(outbox.callbacks[1].body);
    expect(Object.keys(successful).slice(0, 2)).toEqual(['status', 'sourceMoney']);
    expect(successful).toMatchObject({
      status: 'SUCCESSFUL',
      validationKey: 'vk_s',
      money: { amount: 148.5, currency: 'EUR', presentationAmount: 'EUR148.50' },
    });
  });

  it('keeps URLs once given; changing them alone is no transition and calls nobody', async () => {
    const { service, outbox, sessions } = await setup();
    await service.report('vk_1', reportOf('PENDING', { returnUrl: RETURN }));
    const moved = await service.report('vk_1', reportOf('PENDING', { returnUrl: `${RETURN}&v=2` }));
    expect(moved.outcome).toBe('updated');
    expect(await service.history('vk_1')).toHaveLength(1);
    await service.report('vk_1', reportOf('SUCCESSFUL'));
    expect(sessions.stored('vk_1')?.returnUrl).toBe(`${RETURN}&v=2`);
    expect(outbox.callbacks.map((c) => c.url)).toEqual([`${RETURN}&v=2`]);
  });

  it('refuses new URLs on a final session with 409, and takes the identical report without them', async () => {
    const { service } = await setup();
    await service.report('vk_1', reportOf('FAILED', { errorUrl: ERROR }));
    expect((await service.report('vk_1', reportOf('FAILED'))).outcome).toBe('unchanged');
    const error = await apiErrorOf(
      service.report('vk_1', reportOf('FAILED', { errorUrl: `${ERROR}/2` })),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.items[0].field).toBe('errorUrl');
  });

  it('leaves no callback behind when the transaction of its transition rolls back', async () => {
    const { service, outbox } = await setup();
    await service.report('vk_1', reportOf('PENDING', { returnUrl: RETURN }));
    // The callback is written, then the transaction fails before it commits.
    const enqueue = outbox.enqueue.bind(outbox);
    outbox.enqueue = async (tx, callback) => {
      await enqueue(tx, callback);
      throw new Error('connection lost before COMMIT');
    };
    await expect(service.report('vk_1', reportOf('SUCCESSFUL'))).rejects.toThrow('before COMMIT');
    expect(outbox.callbacks).toEqual([]);
  });

  it('refuses the URLs the outbox refuses (production wants https), naming each field', async () => {
    const { service, outbox } = await setup();
    outbox.refuse = (url) =>
      url.startsWith('https://') ? undefined : 'must be an https URL in production';
    const error = await apiErrorOf(
      service.report(
        'vk_1',
        reportOf('PENDING', { returnUrl: 'http://merchant.example/r', errorUrl: ERROR }),
      ),
    );
    expect(error.items.map((i) => i.field)).toEqual(['returnUrl']);
  });
});

describe('PaymentSessionService: personal data', () => {
  const PERSONAL = { customerFirstName: 'Maeve', senderEmailAddress: 'maeve@example.ie' };
  const withPersonal = reportOf('SUCCESSFUL', {
    paymentResponse: successfulResponse(PERSONAL),
  });

  it('takes the identical final report after an erasure as the same no-op as before it', async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', withPersonal);
    expect((await service.report('vk_1', withPersonal)).outcome).toBe('unchanged');
    await service.erasePersonalData('vk_1');
    const stored = sessions.stored('vk_1')!;
    expect((await service.report('vk_1', withPersonal)).outcome).toBe('unchanged');
    // The repeat brings nothing back: the erased fields stay erased.
    expect(sessions.stored('vk_1')).toEqual(stored);
    expect(stored.paymentResponse).not.toContain('Maeve');
  });

  it('still refuses any other report of an erased final session with 409', async () => {
    const { service, sessions } = await setup();
    await service.report('vk_1', withPersonal);
    await service.erasePersonalData('vk_1');
    const other = reportOf('SUCCESSFUL', {
      paymentResponse: successfulResponse({ ...PERSONAL, traceId: 'TRC-OTHER' }),
    });
    expect(await apiErrorOf(service.report('vk_1', other))).toMatchObject({ status: 409 });
    expect(sessions.stored('vk_1')?.paymentResponse).not.toContain('TRC-OTHER');
  });

  it('refuses personal fields added to a final session that never had them (no erasure)', async () => {
    const { service } = await setup();
    await service.report('vk_1', reportOf('SUCCESSFUL'));
    expect(await apiErrorOf(service.report('vk_1', withPersonal))).toMatchObject({ status: 409 });
  });

  it('erases, counts and marks on retention only the sessions that held personal data', async () => {
    const { service, sessions, events } = await setup();
    await service.report('vk_personal', withPersonal);
    await service.report('vk_plain', reportOf('SUCCESSFUL'));
    await service.report('vk_failed', reportOf('FAILED'));
    await service.report('vk_pending', reportOf('PENDING'));
    const later = Date.now() + 1000;
    expect(await service.eraseExpired(later, 500)).toEqual({ examined: 1, erased: 1 });
    expect(sessions.stored('vk_personal')?.personalDataErasedAt).toEqual(expect.any(Number));
    for (const key of ['vk_plain', 'vk_failed', 'vk_pending']) {
      expect(sessions.stored(key)?.personalDataErasedAt ?? null).toBeNull();
    }
    expect(events.all().at(-1)).toMatchObject({
      action: 'erasePersonalDataOnRetention',
      changes: { sessions: { old: null, new: 1 } },
    });
    // Nothing is left to look at, however often the retention comes back.
    expect(await service.eraseExpired(later, 500)).toEqual({ examined: 0, erased: 0 });
  });

  it('does not mark a session erased on request when it held no personal data', async () => {
    const { service, sessions, events } = await setup();
    await service.report('vk_plain', reportOf('SUCCESSFUL'));
    const before = events.all().length;
    await service.erasePersonalData('vk_plain');
    expect(sessions.stored('vk_plain')?.personalDataErasedAt ?? null).toBeNull();
    expect(events.all()).toHaveLength(before);
  });
});
