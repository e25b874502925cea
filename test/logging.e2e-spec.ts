import {
  ADMIN_TOKEN,
  adminHeaders,
  expectEnvelope,
  http,
  HttpResult,
  startTestApp,
  successfulResponse,
  TestApp,
} from './support/test-app.js';
import { DataSource } from 'typeorm';
import { WebhookReceiver } from './support/webhook-receiver.js';

const CATALOG = '/api/crypto-currency-protocol-processors';
const STATUS = '/api/gateway/payment-status/';

const SEEDED_KEY = 'seeded-key-logtest-0123456789-abcdefghijklmnop';
const UNKNOWN_KEY = 'unknown-key-logtest-0123456789-abcdefghijklmn';
const VALIDATION_KEY = 'vk_logtest_secret_9f8e7d6c5b4a';
const MISSING_VALIDATION_KEY = 'vk_missing_secret_1a2b3c4d5e6f';

/** Personal data of the payment response; none of it may reach a log. */
const PERSONAL = {
  customerFirstName: 'Aoibheann',
  customerLastName: 'Quigley-Ferriter',
  senderEmailAddress: 'aoibheann.quigley@example.org',
  accountNumber: 'IE64IRCE92050112345678',
  customerAccountNumber: 'TWALLET9988776655443322',
  customerDob: '1987-11-03',
};
const MASKED_ACCOUNT = 'IE64XXXXXXXXXXXXXX5678';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type LogLine = Record<string, unknown>;

function parse(line: string): LogLine | undefined {
  try {
    const value = JSON.parse(line);
    return value !== null && typeof value === 'object' ? (value as LogLine) : undefined;
  } catch {
    return undefined;
  }
}

function statusCodeOf(line: LogLine): unknown {
  return line.statusCode ?? (line.res as { statusCode?: unknown } | undefined)?.statusCode;
}

function latencyOf(line: LogLine): unknown {
  return line.latency ?? line.latencyMs ?? line.responseTime;
}

/** The line written when a request completes. */
function isRequestLine(line: LogLine): boolean {
  return statusCodeOf(line) !== undefined;
}

describe('request logs (e2e)', () => {
  let t: TestApp;
  let createdKey: string;
  /** Every request made, with the id it was answered under. */
  const requests: { label: string; result: HttpResult; requestId: string }[] = [];

  async function call(
    label: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string },
  ): Promise<HttpResult> {
    const result = await http(t.url + path, init);
    requests.push({ label, result, requestId: result.headers.get('x-request-id') ?? '' });
    return result;
  }

  /** Request lines for the given id, once they have been written. */
  async function linesOf(requestId: string): Promise<LogLine[]> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const lines = t.logs
        .map(parse)
        .filter((l): l is LogLine => l !== undefined && l.requestId === requestId);
      if (lines.some(isRequestLine)) return lines;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return t.logs
      .map(parse)
      .filter((l): l is LogLine => l !== undefined && l.requestId === requestId);
  }

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' }, { captureLogs: true });
    await t.seed({ merchants: [{ id: 'seeded', name: 'Seeded', apiKeys: [SEEDED_KEY] }] });

    // Operator calls, carrying the admin token.
    expect(
      (
        await call('create merchant', '/admin/merchants', {
          method: 'POST',
          headers: adminHeaders,
          body: { id: 'acme', name: 'Acme' },
        })
      ).status,
    ).toBe(201);
    const key = await call('create key', '/admin/merchants/acme/api-keys', {
      method: 'POST',
      headers: adminHeaders,
    });
    expect(key.status).toBe(201);
    createdKey = key.body.apiKey;

    const report = await call('report SUCCESSFUL', `/admin/payment-sessions/${VALIDATION_KEY}`, {
      method: 'PUT',
      headers: adminHeaders,
      body: {
        merchantId: 'acme',
        status: 'SUCCESSFUL',
        paymentResponse: successfulResponse({ ...PERSONAL, clientReference: 'order-1042' }),
      },
    });
    expect(report.status).toBe(201);
    const refused = await call('report refused', `/admin/payment-sessions/${VALIDATION_KEY}`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { merchantId: 'acme', status: 'FAILED', errorMessage: 'Declined' },
    });
    expect(refused.status).toBe(409);
    const invalid = await call('report invalid', `/admin/payment-sessions/${VALIDATION_KEY}`, {
      method: 'PUT',
      headers: adminHeaders,
      body: {
        merchantId: 'acme',
        status: 'SUCCESSFUL',
        paymentResponse: successfulResponse({ ...PERSONAL, customerDob: 'born 1987-11-03' }),
      },
    });
    expect(invalid.status).toBe(400);
    expect(
      (
        await call('history', `/admin/payment-sessions/${VALIDATION_KEY}/history`, {
          headers: adminHeaders,
        })
      ).status,
    ).toBe(200);

    // Merchant calls, carrying API keys and full validation keys.
    const traced = await call('status traced', STATUS + VALIDATION_KEY, {
      headers: { key: createdKey, 'x-request-id': 'trace-abc-123' },
    });
    expect(traced.status).toBe(200);
    expect(traced.body.payload[0].paymentResponse.customerFirstName).toBe(
      PERSONAL.customerFirstName,
    );
    expect(
      (await call('status untraced', STATUS + VALIDATION_KEY, { headers: { key: createdKey } }))
        .status,
    ).toBe(200);
    expect(
      (
        await call('status alias header', STATUS + VALIDATION_KEY, {
          headers: { 'x-api-key': createdKey },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('status missing', STATUS + MISSING_VALIDATION_KEY, {
          headers: { key: createdKey },
        })
      ).status,
    ).toBe(404);
    expect(
      (await call('status foreign', STATUS + VALIDATION_KEY, { headers: { key: SEEDED_KEY } }))
        .status,
    ).toBe(404);
    expect((await call('catalog', CATALOG, { headers: { key: SEEDED_KEY } })).status).toBe(200);
    expect((await call('unknown key', CATALOG, { headers: { key: UNKNOWN_KEY } })).status).toBe(
      401,
    );
    expect(
      (
        await call('wrong admin token', '/admin/crypto-pairs', {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}-wrong` },
        })
      ).status,
    ).toBe(401);
  });
  afterAll(() => t.close());

  it('echoes x-request-id and logs the request under it', async () => {
    const traced = requests.find((r) => r.label === 'status traced')!;
    expect(traced.result.headers.get('x-request-id')).toBe('trace-abc-123');
    const lines = await linesOf('trace-abc-123');
    const requestLines = lines.filter(isRequestLine);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0].method).toBe('GET');
    expect(statusCodeOf(requestLines[0])).toBe(200);
    // Every line mentioning the id belongs to that request.
    for (const raw of t.logs.filter((l) => l.includes('trace-abc-123'))) {
      expect(parse(raw)?.requestId).toBe('trace-abc-123');
    }
  });

  it('generates a UUID request id when none is given, returns it and logs under it', async () => {
    const untraced = requests.find((r) => r.label === 'status untraced')!;
    expect(untraced.requestId).toMatch(UUID);
    const lines = (await linesOf(untraced.requestId)).filter(isRequestLine);
    expect(lines).toHaveLength(1);
    expect(statusCodeOf(lines[0])).toBe(200);
    // Each request gets its own id.
    const ids = requests.map((r) => r.requestId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('writes one JSON request line per request with requestId, method, route or url, statusCode and latency', async () => {
    for (const { label, result, requestId } of requests) {
      const lines = (await linesOf(requestId)).filter(isRequestLine);
      expect({ label, count: lines.length }).toEqual({ label, count: 1 });
      const line = lines[0];
      expect(line.requestId).toBe(requestId);
      expect(typeof line.method).toBe('string');
      const routeOrUrl = line.route ?? line.url ?? (line.req as { url?: unknown } | undefined)?.url;
      expect({ label, routeOrUrl: typeof routeOrUrl }).toEqual({ label, routeOrUrl: 'string' });
      expect(statusCodeOf(line)).toBe(result.status);
      expect(typeof latencyOf(line)).toBe('number');
    }
    // Every line the application writes is JSON.
    for (const raw of t.logs) expect(parse(raw)).toBeDefined();
  });

  it('never logs an API key, known, created or unknown', async () => {
    await Promise.all(requests.map((r) => linesOf(r.requestId)));
    const all = t.logs.join('\n');
    expect(createdKey.length).toBeGreaterThanOrEqual(43);
    expect(all).not.toContain(createdKey);
    expect(all).not.toContain(createdKey.slice(-32));
    expect(all).not.toContain(SEEDED_KEY);
    expect(all).not.toContain(UNKNOWN_KEY);
  });

  it('never logs the admin token', async () => {
    await Promise.all(requests.map((r) => linesOf(r.requestId)));
    const all = t.logs.join('\n');
    expect(all).not.toContain(ADMIN_TOKEN);
    expect(all).not.toContain(ADMIN_TOKEN.slice(0, 16));
  });

  it('logs a status lookup with only the first 6 characters of the validation key and …', async () => {
    const traced = (await linesOf('trace-abc-123')).filter(isRequestLine)[0];
    const text = JSON.stringify(traced);
    expect(text).toContain(`${VALIDATION_KEY.slice(0, 6)}…`);
    expect(text).not.toContain(VALIDATION_KEY.slice(0, 7));
  });

  it('never logs a full validation key, on merchant or operator routes', async () => {
    await Promise.all(requests.map((r) => linesOf(r.requestId)));
    const leaking = t.logs.filter(
      (l) =>
        l.includes(VALIDATION_KEY.slice(0, 7)) || l.includes(MISSING_VALIDATION_KEY.slice(0, 7)),
    );
    expect(leaking).toEqual([]);
  });

  it('never logs personal data of a payment response', async () => {
    await Promise.all(requests.map((r) => linesOf(r.requestId)));
    const all = t.logs.join('\n');
    for (const value of [...Object.values(PERSONAL), MASKED_ACCOUNT, 'born 1987-11-03']) {
      expect({ value, logged: all.includes(value) }).toEqual({ value, logged: false });
    }
  });

  it.each([
    [
      'a malformed JSON body',
      'trace-bad-json-1',
      `{"customerFirstName": "${PERSONAL.customerFirstName}",`,
      400,
      'MALFORMED_REQUEST',
    ],
    [
      'a body over 1 MiB',
      'trace-big-body-1',
      JSON.stringify({ customerFirstName: PERSONAL.customerFirstName, pad: 'x'.repeat(1100000) }),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
  ])(
    'echoes and logs the request id of a request refused before routing (%s)',
    async (_label, requestId, rawBody, status, errorCode) => {
      const r = await http(t.url + '/admin/crypto-pairs', {
        method: 'POST',
        headers: { ...adminHeaders, 'content-type': 'application/json', 'x-request-id': requestId },
        rawBody,
      });
      expectEnvelope(r, status, errorCode);
      expect(r.headers.get('x-request-id')).toBe(requestId);
      const lines = (await linesOf(requestId)).filter(isRequestLine);
      expect(lines).toHaveLength(1);
      expect(statusCodeOf(lines[0])).toBe(status);
      expect(t.logs.join('\n')).not.toContain(PERSONAL.customerFirstName);
    },
  );
});

describe('every log line of a run has its message in msg (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp(
      {
        AUTH_MODE: 'api-key',
        LOG_LEVEL: 'debug',
        PERSONAL_DATA_RETENTION_DAYS: '30',
        PERSONAL_DATA_SWEEP_SECONDS: '1',
        CALLBACK_RETRY_SCHEDULE: '1',
      },
      { captureLogs: true },
    );
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('writes no line without msg, and no message in context, whatever the service does', async () => {
    await t.seed({ merchants: [{ id: 'acme', name: 'Acme', apiKeys: [SEEDED_KEY] }] });
    // Operator requests let in and refused every way, and a revoked token tried again.
    const operator = await http(`${t.url}/admin/operators`, {
      method: 'POST',
      headers: adminHeaders,
      body: { name: 'logger', role: 'viewer' },
    });
    const token = { authorization: `Bearer ${operator.body.token}` };
    await http(`${t.url}/admin/merchants`, { headers: token });
    await http(`${t.url}/admin/merchants`, { method: 'POST', headers: token, body: {} });
    await http(`${t.url}/admin/merchants`);
    await http(`${t.url}/admin/merchants`, { headers: { authorization: 'Bearer op_nobody' } });
    await http(`${t.url}/admin/operators/${operator.body.id}`, {
      method: 'DELETE',
      headers: adminHeaders,
    });
    await http(`${t.url}/admin/merchants`, { headers: token });
    // Merchant requests, an unknown route, a bad body.
    await http(t.url + CATALOG, { headers: { key: SEEDED_KEY } });
    await http(t.url + '/api/nowhere', { headers: { key: SEEDED_KEY } });
    await http(`${t.url}/admin/crypto-pairs`, {
      method: 'POST',
      headers: adminHeaders,
      rawBody: '{"a":',
      body: undefined,
    });
    // Callbacks delivered and refused, personal data erased on request and past retention.
    receiver.answer('/refused', 500);
    for (const [key, path] of [
      ['vk_log_msg_0001', '/ok'],
      ['vk_log_msg_0002', '/refused'],
    ]) {
      const r = await http(`${t.url}/admin/payment-sessions/${key}`, {
        method: 'PUT',
        headers: adminHeaders,
        body: {
          merchantId: 'acme',
          status: 'SUCCESSFUL',
          returnUrl: `${receiver.url}${path}`,
          paymentResponse: successfulResponse(PERSONAL),
        },
      });
      expect(r.status).toBe(201);
    }
    await http(`${t.url}/admin/payment-sessions/vk_log_msg_0001/personal-data`, {
      method: 'DELETE',
      headers: adminHeaders,
    });
    await t.app
      .get(DataSource)
      .query(
        `UPDATE payment_session SET final_at = ${Date.now() - 40 * 86_400_000} WHERE validation_key = 'vk_log_msg_0002'`,
      );

    const lines = () => t.logs.map((line) => JSON.parse(line) as LogLine);
    const seen = (text: RegExp) => lines().some((line) => text.test(String(line.msg)));
    const deadline = Date.now() + 10_000;
    while (
      !(
        seen(/^Erased personal data past retention$/) &&
        seen(/^Callback msg_\S+ delivered/) &&
        seen(/^Callback msg_\S+ rejected/) &&
        seen(/^Audit chain head: \d+ events/)
      ) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect({
      retention: seen(/^Erased personal data past retention$/),
      delivered: seen(/^Callback msg_\S+ delivered/),
      rejected: seen(/^Callback msg_\S+ rejected/),
      head: seen(/^Audit chain head: \d+ events/),
      nest: lines().some((line) => line.context === 'RoutesResolver'),
    }).toEqual({ retention: true, delivered: true, rejected: true, head: true, nest: true });

    const wrong = lines().filter(
      (line) =>
        typeof line.msg !== 'string' ||
        line.msg.trim() === '' ||
        (line.context !== undefined && !/^[A-Z][A-Za-z]*$/.test(String(line.context))),
    );
    expect(wrong).toEqual([]);
  });
});
