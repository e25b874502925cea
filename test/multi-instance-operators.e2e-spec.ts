import { jest } from '@jest/globals';
import pg from 'pg';
import { TOKEN_CACHE_TTL_MS } from '../src/operators/operator-tokens.service.js';
import { MainProcess, startMain } from './support/main-process.js';
import { PostgresServer, startPostgres } from './support/servers.js';
import {
  ADMIN_TOKEN,
  adminHeaders as admin,
  http,
  successfulResponse,
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
} from './support/test-app.js';

// Two production processes on a PostgreSQL of their own: more than the default time per step.
jest.setTimeout(120_000);

let postgres: PostgresServer;
let a: MainProcess;
let b: MainProcess;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Operators, the audit trail and the retention of personal data across two instances. */
describe('operators and the audit trail on two instances (e2e)', () => {
  beforeAll(async () => {
    postgres = await startPostgres();
    const env = {
      DATABASE_URL: postgres.url,
      ADMIN_TOKEN,
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      PERSONAL_DATA_RETENTION_DAYS: '30',
      PERSONAL_DATA_SWEEP_SECONDS: '1',
      // 40 writes at once below, 20 per instance: half of the pool is for reads
      // (src/database/dialect.ts, readPoolSize), so 50 leaves 25 for writes, each write one of its
      // own (and the background jobs some more) instead of queueing for one, where a wait past the
      // connect timeout is a 503 by design. Two instances of 50 stay well within this
      // PostgreSQL's max_connections (200, test/support/servers.ts).
      DATABASE_POOL_SIZE: '50',
      LOG_LEVEL: 'warn',
    };
    [a, b] = await Promise.all([startMain(env), startMain(env)]);
    const created = await http(`${a.url}/admin/merchants`, {
      method: 'POST',
      headers: admin,
      body: { id: 'acme', name: 'Acme' },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    for (const instance of [a, b]) instance?.child.kill('SIGKILL');
    await postgres?.destroy();
  });

  it('refuses an operator revoked through one instance on the other before its kept token expires', async () => {
    const created = await http(`${a.url}/admin/operators`, {
      method: 'POST',
      headers: admin,
      body: { name: 'temp', role: 'viewer' },
    });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    // B keeps the token from this request on, for TOKEN_CACHE_TTL_MS at the least.
    const cachedAt = Date.now();
    expect((await http(`${b.url}/metrics`, { headers: bearer(token) })).status).toBe(200);
    const revoked = await http(`${a.url}/admin/operators/${created.body.id}`, {
      method: 'DELETE',
      headers: admin,
    });
    expect(revoked.status).toBe(204);
    expect((await http(`${a.url}/metrics`, { headers: bearer(token) })).status).toBe(401);
    // Only the change feed can make B refuse the token before what it kept expires (a second of
    // margin): a refusal later could come from the expiry alone, so the bound stays below it.
    const bound = TOKEN_CACHE_TTL_MS - 1000;
    let refusedAfter = Infinity;
    while (Date.now() - cachedAt < bound) {
      if ((await http(`${b.url}/metrics`, { headers: bearer(token) })).status === 401) {
        refusedAfter = Date.now() - cachedAt;
        break;
      }
      await sleep(20);
    }
    expect(refusedAfter).toBeLessThan(bound);
  });

  it('keeps one chain when both instances append at once', async () => {
    const writes = Array.from({ length: 40 }, (_, i) =>
      http(`${(i % 2 ? a : b).url}/admin/crypto-pairs`, {
        method: 'POST',
        headers: admin,
        body: {
          currencyCode: `C${i}`,
          currencyName: `Coin ${i}`,
          protocol: 'P',
          countryCode: 'IE',
        },
      }),
    );
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual(Array(40).fill(201));
    for (const instance of [a, b]) {
      const verified = await http(`${instance.url}/admin/audit-events/verify`, { headers: admin });
      expect(verified.body).toMatchObject({ valid: true });
      expect(verified.body.events).toBeGreaterThanOrEqual(41);
    }
    const listed = await http(`${a.url}/admin/audit-events?action=createCryptoPair&size=100`, {
      headers: admin,
    });
    expect(listed.body.page.total).toBe(40);
    // A head read on one instance is a head of the chain the other verifies.
    const head = (await http(`${a.url}/admin/audit-events/head`, { headers: admin })).body;
    const kept = `head=${head.headHash}&events=${head.events}`;
    const checked = await http(`${b.url}/admin/audit-events/verify?${kept}`, { headers: admin });
    expect(checked.body).toMatchObject({ valid: true, events: head.events });
  });

  it('publishes heads of the one chain from both instances; the one with most events is the head', async () => {
    const head = (await http(`${a.url}/admin/audit-events/head`, { headers: admin })).body;
    const published = async () => {
      const heads = [];
      for (const instance of [a, b]) {
        const text = (await http(`${instance.url}/metrics`, { headers: admin })).text;
        const match = /^audit_chain_head\{hash="([0-9a-f]{64})"\} (\d+)$/m.exec(text);
        if (match) heads.push({ headHash: match[1], events: Number(match[2]) });
      }
      return heads;
    };
    // The deadline only ends a run where the head is never published.
    const deadline = Date.now() + 20_000;
    let heads = await published();
    while (Math.max(...heads.map((h) => h.events), 0) < head.events && Date.now() < deadline) {
      await sleep(200);
      heads = await published();
    }
    expect(heads).toHaveLength(2);
    const newest = heads.reduce((x, y) => (y.events > x.events ? y : x));
    expect(newest).toEqual({ headHash: head.headHash, events: head.events });
    // Every head published by either instance is still in the chain.
    for (const kept of heads) {
      const r = await http(
        `${b.url}/admin/audit-events/verify?head=${kept.headHash}&events=${kept.events}`,
        { headers: admin },
      );
      expect(r.body).toMatchObject({ valid: true });
    }
  });

  it('erases personal data past retention once, whichever instance sweeps', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `vk_retention_${i}`);
    for (const [i, key] of keys.entries()) {
      const r = await http(`${(i % 2 ? a : b).url}/admin/payment-sessions/${key}`, {
        method: 'PUT',
        headers: admin,
        body: {
          merchantId: 'acme',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse({ customerFirstName: 'Oisin' }),
        },
      });
      expect(r.status).toBe(201);
    }
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      await client.query(
        "UPDATE payment_session SET final_at = $1 WHERE validation_key LIKE 'vk_retention_%'",
        [Date.now() - 31 * 24 * 60 * 60 * 1000],
      );
      const deadline = Date.now() + 15_000;
      let left = keys.length;
      while (left > 0 && Date.now() < deadline) {
        await sleep(200);
        const { rows } = await client.query<{ n: string }>(
          "SELECT COUNT(*) AS n FROM payment_session WHERE validation_key LIKE 'vk_retention_%' AND payment_response LIKE '%Oisin%'",
        );
        left = Number(rows[0].n);
      }
      expect(left).toBe(0);
      const { rows } = await client.query<{ changes: string }>(
        "SELECT changes FROM audit_event WHERE action = 'erasePersonalDataOnRetention'",
      );
      const erased = rows.reduce(
        (sum, row) => sum + Number(JSON.parse(row.changes).sessions.new),
        0,
      );
      expect(erased).toBe(keys.length);
    } finally {
      await client.end();
    }
    const key = await http(`${a.url}/admin/merchants/acme/api-keys`, {
      method: 'POST',
      headers: admin,
    });
    for (const instance of [a, b]) {
      const status = await http(`${instance.url}/api/gateway/payment-status/${keys[0]}`, {
        headers: { key: key.body.apiKey },
      });
      expect(status.status).toBe(200);
      expect(status.body.payload[0].paymentResponse).not.toHaveProperty('customerFirstName');
      expect(status.body.payload[0].paymentResponse.traceId).toBe('TRC-1');
    }
  });
});
