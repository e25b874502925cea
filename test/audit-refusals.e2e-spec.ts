import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REFUSAL_COUNT_LIMITS } from '../src/audit/refusal-counts.js';
import { REFUSALS_COUNTED_ACTION } from '../src/audit/audit-trail.service.js';
import { adminHeaders, freshDatabase, http, startTestApp, TestApp } from './support/test-app.js';

const FLOODER = '203.0.113.50';
const OTHER = '198.51.100.60';
const REQUESTS = 300;
const AT_ONCE = 20;

async function events(t: TestApp, query: string) {
  const r = await http(`${t.url}/admin/audit-events?size=100&${query}`, { headers: adminHeaders });
  expect(r.status).toBe(200);
  return r.body as {
    payload: {
      action: string;
      target: string | null;
      outcome: number;
      operator: { kind: string };
      changes: Record<string, { old: unknown; new: unknown }>;
    }[];
    page: { total: number };
  };
}

const head = async (t: TestApp) =>
  (await http(`${t.url}/admin/audit-events/head`, { headers: adminHeaders })).body.events as number;

describe('refused operator requests from a flooding client (e2e)', () => {
  let dir: string;
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-refusals-'));
    database = await freshDatabase(dir);
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("records a client's first refusals one by one and counts the rest, one event per window", async () => {
    const env = {
      DATABASE_URL: database.url,
      AUTH_MODE: 'api-key',
      RATE_LIMIT_PER_MINUTE: '20',
      TRUST_PROXY: 'loopback',
    };
    const a = await startTestApp(env);
    const before = await head(a);
    let sent = 0;
    const statuses: number[] = [];
    while (sent < REQUESTS) {
      const round = await Promise.all(
        Array.from({ length: AT_ONCE }, (_, i) =>
          http(`${a.url}/admin/merchants`, {
            headers: {
              'x-forwarded-for': FLOODER,
              // No token, a token nobody holds: refusals of either reason.
              ...(i % 2 ? { authorization: `Bearer op_${'z'.repeat(43)}` } : {}),
            },
          }),
        ),
      );
      statuses.push(...round.map((r) => r.status));
      sent += AT_ONCE;
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(REQUESTS / 2);
    // A refusal written as an event of its own may be answered 503 on a machine so busy that the
    // database does not answer in time (the documented answer then, with nothing written).
    expect(statuses.filter((s) => s !== 401 && s !== 429 && s !== 503)).toEqual([]);
    const unavailable = statuses.filter((s) => s === 503).length;
    // While it floods, the client has added a few events (a window's worth; if the flood crossed
    // the minute, two and the first window's count), not one per request.
    const during = (await head(a)) - before;
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThanOrEqual(2 * REFUSAL_COUNT_LIMITS.perAddress + 1);
    // Another client is still recorded one by one.
    for (let i = 0; i < 2; i++) {
      const r = await http(`${a.url}/admin/operators`, { headers: { 'x-forwarded-for': OTHER } });
      expect(r.status).toBe(401);
    }
    expect((await events(a, 'action=listOperators&operator=unknown')).page.total).toBe(2);
    // The counts are written when their window ends, or when the instance stops.
    await a.close();

    const b = await startTestApp(env);
    try {
      const counted = await events(b, `action=${REFUSALS_COUNTED_ACTION}`);
      expect(counted.payload.length).toBeGreaterThanOrEqual(1);
      expect(counted.payload.length).toBeLessThanOrEqual(2);
      let countedRequests = 0;
      for (const event of counted.payload) {
        expect(event).toMatchObject({ target: FLOODER, operator: { kind: 'unknown' } });
        const summary = event.changes.refusedRequests.new as {
          count: number;
          from: string;
          to: string;
          byOutcome: Record<string, number>;
          byReason: Record<string, number>;
        };
        expect(Date.parse(summary.to) - Date.parse(summary.from)).toBe(
          REFUSAL_COUNT_LIMITS.windowMs,
        );
        const sum = (counts: Record<string, number>) =>
          Object.values(counts).reduce((total, n) => total + n, 0);
        expect(sum(summary.byOutcome)).toBe(summary.count);
        expect(sum(summary.byReason)).toBe(summary.count);
        expect(Object.keys(summary.byReason).sort()).toEqual(['missing_token', 'unknown_token']);
        countedRequests += summary.count;
      }
      // Every refused request is in the trail: one by one, or in a count.
      const oneByOne = await events(b, 'action=listMerchants&operator=unknown');
      expect(oneByOne.page.total + countedRequests + unavailable).toBe(REQUESTS);
      const verified = await http(`${b.url}/admin/audit-events/verify`, { headers: adminHeaders });
      expect(verified.body).toMatchObject({ valid: true });
    } finally {
      await b.close();
    }
  });
});
