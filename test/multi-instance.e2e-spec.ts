import { jest } from '@jest/globals';
import pg from 'pg';
import { MIGRATIONS } from '../src/schema/data-source-options.js';
import { KEY_CACHE_TTL_MS } from '../src/merchants/api-key.service.js';
import { MainProcess, startMain } from './support/main-process.js';
import {
  freezeRedis,
  PostgresServer,
  RedisServer,
  startPostgres,
  startRedis,
} from './support/servers.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import {
  ADMIN_TOKEN,
  http,
  HttpResult,
  successfulResponse,
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
  adminHeaders as admin,
  callbacksWhen,
} from './support/test-app.js';

// Jest takes the time limit of tests from its global configuration only (a project's testTimeout
// is ignored): starting two instances, or sending 900 requests, takes longer than 30 s on a busy
// machine.
jest.setTimeout(120_000);

const LIMIT = 300;
const MISS_LIMIT = 4;

let postgres: PostgresServer;
let redis: RedisServer;
let a: MainProcess;
let b: MainProcess;

const statusOf = (r: HttpResult) => r.status;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until `check` holds. The deadline is generous: it only bounds a test that would fail
 * anyway, so a busy machine slows the suite down instead of failing it.
 */
async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(20);
  }
}

/** `task` for every item, at most `limit` at a time; the results in the items' order. */
async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
let seq = 0;
const unique = (label: string) => `${label}_${++seq}_${Date.now().toString(36)}`;

async function newKey(
  instance: MainProcess,
  merchantId: string,
): Promise<{ keyId: string; apiKey: string }> {
  const r = await http(`${instance.url}/admin/merchants/${merchantId}/api-keys`, {
    method: 'POST',
    headers: admin,
  });
  expect(r.status).toBe(201);
  return r.body;
}

const report = (instance: MainProcess, key: string, body: object) =>
  http(`${instance.url}/admin/payment-sessions/${key}`, { method: 'PUT', headers: admin, body });
const lookup = (instance: MainProcess, apiKey: string, key: string) =>
  http(`${instance.url}/api/gateway/payment-status/${key}`, { headers: { key: apiKey } });
const catalog = (instance: MainProcess, apiKey: string, query = '') =>
  http(`${instance.url}/api/crypto-currency-protocol-processors${query}`, {
    headers: { key: apiKey },
  });

interface Attempt {
  httpStatus?: number;
  error?: string;
}

describe('several instances on one PostgreSQL and one Redis (e2e)', () => {
  let apiKey: string;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    const env = {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      ADMIN_TOKEN,
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: String(MISS_LIMIT),
      // The races below send 16 writes to each instance at once. Half of an instance's pool is for
      // reads (src/database/dialect.ts, readPoolSize), so 40 leaves 20 connections for writes: each
      // write gets one of its own instead of queueing for one, where a wait past the connect
      // timeout is a 503 by design (and, on a busy machine, not a rare one). Two instances of 40,
      // and the change feed's connection of each, stay well within this PostgreSQL's
      // max_connections (200, test/support/servers.ts).
      DATABASE_POOL_SIZE: '40',
      LOG_LEVEL: 'warn',
    };
    // Both at the same moment, on an empty database.
    [a, b] = await Promise.all([startMain(env), startMain(env)]);
    expect(
      (
        await http(`${a.url}/admin/merchants`, {
          method: 'POST',
          headers: admin,
          body: { id: 'acme', name: 'Acme' },
        })
      ).status,
    ).toBe(201);
    apiKey = (await newKey(a, 'acme')).apiKey;
  });

  afterAll(async () => {
    for (const instance of [a, b]) instance?.child.kill('SIGKILL');
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
  });

  it('ran each migration once when both started together on an empty database; both serve', async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        'SELECT name FROM migrations ORDER BY id',
      );
      expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await client.end();
    }
    for (const instance of [a, b])
      expect((await http(`${instance.url}/health/ready`)).status).toBe(200);
  });

  it('shows a catalog write through one instance to the next read through the other', async () => {
    const pair = {
      currencyCode: 'SOL',
      currencyName: 'Solana',
      protocol: 'SPL',
      countryCode: 'PT',
    };
    // B has the catalog cached before the write.
    expect((await catalog(b, apiKey, '?countryCode=PT')).body.page.total).toBe(0);
    const created = await http(`${a.url}/admin/crypto-pairs`, {
      method: 'POST',
      headers: admin,
      body: pair,
    });
    expect(created.status).toBe(201);
    expect((await catalog(b, apiKey, '?countryCode=PT')).body.payload).toEqual([
      { currencyCode: 'SOL', currencyName: 'Solana', protocol: 'SPL', countryCode: 'PT' },
    ]);
    await http(`${b.url}/admin/crypto-pairs/${created.body.id}`, {
      method: 'PATCH',
      headers: admin,
      body: { enabled: false },
    });
    expect((await catalog(a, apiKey, '?countryCode=PT')).body.page.total).toBe(0);
  });

  it('shows a session report through one instance to the next lookup through the other', async () => {
    const key = unique('vk_multi');
    expect((await report(a, key, { merchantId: 'acme', status: 'PENDING' })).status).toBe(201);
    expect((await lookup(b, apiKey, key)).body).toEqual({ payload: [{ status: 'PENDING' }] });
    expect((await report(b, key, { merchantId: 'acme', status: 'NOT_COMPLETED' })).status).toBe(
      200,
    );
    expect((await lookup(a, apiKey, key)).body).toEqual({ payload: [{ status: 'NOT_COMPLETED' }] });
  });

  it('accepts a key created through one instance on the other at once', async () => {
    const created = await newKey(a, 'acme');
    expect((await catalog(b, created.apiKey)).status).toBe(200);
  });

  it('refuses a key revoked through one instance on the other before its kept copy expires', async () => {
    const created = await newKey(a, 'acme');
    // B keeps the key from this request on, for KEY_CACHE_TTL_MS at the least.
    const cachedAt = Date.now();
    expect((await catalog(b, created.apiKey)).status).toBe(200);
    const revoked = await http(`${a.url}/admin/merchants/acme/api-keys/${created.keyId}`, {
      method: 'DELETE',
      headers: admin,
    });
    expect(revoked.status).toBe(204);
    expect((await catalog(a, created.apiKey)).status).toBe(401);
    // Only the change feed can make B refuse the key before what it kept expires (a second of
    // margin): a refusal later could come from the expiry alone, so the bound stays below it.
    const bound = KEY_CACHE_TTL_MS - 1000;
    let refusedAfter = Infinity;
    while (Date.now() - cachedAt < bound) {
      if ((await catalog(b, created.apiKey)).status === 401) {
        refusedAfter = Date.now() - cachedAt;
        break;
      }
      await sleep(20);
    }
    expect(refusedAfter).toBeLessThan(bound);
  });

  it('of 32 conflicting final reports split across the instances exactly one wins; history agrees', async () => {
    const key = unique('vk_race');
    expect((await report(a, key, { merchantId: 'acme', status: 'PENDING' })).status).toBe(201);
    const bodies = Array.from({ length: 32 }, (_, i) =>
      i % 2
        ? { merchantId: 'acme', status: 'FAILED', errorMessage: `Declined ${i}` }
        : {
            merchantId: 'acme',
            status: 'SUCCESSFUL',
            paymentResponse: successfulResponse({ traceId: `T-${i}` }),
          },
    );
    const results = await Promise.all(bodies.map((body, i) => report(i % 2 ? b : a, key, body)));
    const statuses = results.map(statusOf);
    // Any other answer shown whole: a 503 would say which part of the database refused.
    const others = results.filter((r) => r.status !== 200 && r.status !== 409);
    expect(others.map((r) => [r.status, r.body])).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(31);
    const history = await http(`${b.url}/admin/payment-sessions/${key}/history`, {
      headers: admin,
    });
    expect(history.body.payload.map((t: { to: string }) => t.to)).toEqual([
      'PENDING',
      results.find((r) => r.status === 200)!.body.payload[0].status,
    ]);
  });

  it('of 32 concurrent creations of one catalog triple split across the instances exactly one succeeds', async () => {
    const pair = {
      currencyCode: 'DOT',
      currencyName: 'Polkadot',
      protocol: 'RELAY',
      countryCode: 'NL',
    };
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        http(`${(i % 2 ? b : a).url}/admin/crypto-pairs`, {
          method: 'POST',
          headers: admin,
          body: pair,
        }),
      ),
    );
    const statuses = results.map(statusOf);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(31);
  });

  it('delivers 200 callbacks made on both instances exactly once each, never twice at once', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const created = await http(`${a.url}/admin/merchants`, {
        method: 'POST',
        headers: admin,
        body: { id: 'callbacks', name: 'Callbacks' },
      });
      const secret = created.body.callbackSecret as string;
      const url = `${receiver.url}/once`;
      const keys = Array.from({ length: 200 }, () => unique('vk_once'));
      const instanceOf = (i: number) => (i % 2 ? b : a);
      // The reports go in a few at a time: this test is about delivery, not about how many
      // writes the pools take at once (past that, 503 SERVICE_UNAVAILABLE is the answer).
      const reports = await inParallel(keys, 16, (key, i) =>
        report(instanceOf(i), key, {
          merchantId: 'callbacks',
          status: 'FAILED',
          errorMessage: `Declined ${i}`,
          errorUrl: url,
        }),
      );
      expect(reports.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`)).toEqual(
        [],
      );
      await receiver.waitFor(() => receiver.to('/once').length >= 200, 60_000);
      // Once every callback is recorded as delivered none is due again: no request can follow.
      const recorded = await inParallel(keys, 8, async (key, i) => {
        const listed = await callbacksWhen(
          instanceOf(i + 1).url,
          key,
          (callbacks) => callbacks.length > 0 && callbacks.every((c) => c.state === 'delivered'),
          60_000,
        );
        return listed.body.payload.map((c: { state: string; attempts: Attempt[] }) => ({
          state: c.state,
          delivered: c.attempts.at(-1)?.httpStatus,
          // An attempt before the delivery that got no answer (a connection the receiver closed
          // as it was reused, on a busy machine) is retried, as any failed attempt is; one the
          // receiver answered would have been a second delivery, which is counted below.
          answeredBefore: c.attempts.slice(0, -1).filter((a) => a.httpStatus !== undefined),
        }));
      });
      expect(recorded).toEqual(
        keys.map(() => [{ state: 'delivered', delivered: 200, answeredBefore: [] }]),
      );
      const deliveries = receiver.to('/once');
      expect(deliveries).toHaveLength(200);
      expect(new Set(deliveries.map((d) => d.webhookId)).size).toBe(200);
      expect(receiver.maxConcurrentPerId).toBe(1);
      expect(deliveries.every((d) => receiver.verifies(d, secret))).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('counts the general limit across instances through Redis', async () => {
    const { apiKey: counted } = await newKey(a, 'acme');
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await catalog(i % 2 ? b : a, counted)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const over = await catalog(b, counted);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await catalog(a, counted)).status).toBe(429);
  });

  it('counts status lookups that miss across instances through Redis', async () => {
    const { apiKey: guessing } = await newKey(a, 'acme');
    const own = unique('vk_own');
    await report(a, own, { merchantId: 'acme', status: 'PENDING' });
    for (let i = 0; i < MISS_LIMIT; i++) {
      expect((await lookup(i % 2 ? b : a, guessing, unique('vk_guess'))).status).toBe(404);
    }
    expect((await lookup(a, guessing, unique('vk_guess'))).status).toBe(429);
    // Blocked on both: a found key cannot be told from a miss any more.
    expect((await lookup(b, guessing, own)).status).toBe(429);
  });

  it('with Redis stopped counts per instance and warns, never a 5xx; shares again when Redis returns', async () => {
    await redis.stop();
    try {
      const { apiKey: alone } = await newKey(a, 'acme');
      const onA: number[] = [];
      for (let i = 0; i <= LIMIT; i++) onA.push((await catalog(a, alone)).status);
      expect(onA.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
      expect(onA[LIMIT]).toBe(429);
      // B counts on its own: the same key still has its whole budget there.
      for (let i = 0; i < LIMIT; i++) expect((await catalog(b, alone)).status).toBe(200);
      expect(a.output()).toMatch(/Redis unreachable/);
    } finally {
      await redis.start();
    }
    const deadline = Date.now() + 60_000;
    while (!/Redis reachable/.test(a.output().split('Redis unreachable').pop() ?? '')) {
      if (Date.now() > deadline)
        throw new Error(`instance A did not reconnect to Redis:\n${a.output().slice(-2000)}`);
      await sleep(100);
    }
    while (!/Redis reachable/.test(b.output().split('Redis unreachable').pop() ?? '')) {
      if (Date.now() > deadline) throw new Error('instance B did not reconnect to Redis');
      await sleep(100);
    }
    const { apiKey: shared } = await newKey(a, 'acme');
    for (let i = 0; i < LIMIT; i++) expect((await catalog(i % 2 ? b : a, shared)).status).toBe(200);
    expect((await catalog(a, shared)).status).toBe(429);
  });

  it('with Redis hung counts per instance and warns; says Redis is reachable once it answers again', async () => {
    const { apiKey: hung } = await newKey(a, 'acme');
    const since = a.output().length;
    const thaw = freezeRedis(redis);
    try {
      for (let i = 0; i < 3; i++) expect((await catalog(a, hung)).status).toBe(200);
      expect(a.output().slice(since)).toMatch(/Redis unreachable/);
    } finally {
      thaw();
    }
    // The same connection answers again: no reconnection, yet the next count logs the return.
    expect((await catalog(a, hung)).status).toBe(200);
    await until(
      () => /Redis reachable/.test(a.output().slice(since).split('Redis unreachable').pop() ?? ''),
      'instance A says Redis is reachable',
      30_000,
    );
  });

  it('with PostgreSQL stopped under load answers 503 with Retry-After at once, and recovers by itself', async () => {
    const pending = unique('vk_load');
    await report(a, pending, { merchantId: 'acme', status: 'PENDING' });
    // Load spread over keys, each well within its budget of the general limit.
    const loadKeys = await Promise.all(Array.from({ length: 16 }, () => newKey(a, 'acme')));
    const loadKey = loadKeys[0].apiKey;
    let stopping = false;
    let turn = 0;
    const seen: { status: number; ms: number; retryAfter: string | null; at: number }[] = [];
    const loops = [a, b, a, b].map(async (instance) => {
      while (!stopping) {
        const started = Date.now();
        const key = loadKeys[turn++ % loadKeys.length].apiKey;
        const r = await fetch(`${instance.url}/api/gateway/payment-status/${pending}`, {
          headers: { key },
          signal: AbortSignal.timeout(10_000),
        }).catch(() => undefined);
        await r?.arrayBuffer();
        seen.push({
          status: r?.status ?? 0,
          ms: Date.now() - started,
          retryAfter: r?.headers.get('retry-after') ?? null,
          at: started,
        });
      }
    });
    let recovered = false;
    let stoppedAt = 0;
    let restartedAt = 0;
    try {
      await until(() => seen.filter((r) => r.status === 200).length >= 8, 'load answered 200');
      await postgres.stop('immediate');
      // From here PostgreSQL is gone (pg_ctl waited for it): a request started before this moment
      // may still have been answered from the database.
      stoppedAt = Date.now();
      await until(
        () => seen.filter((r) => r.at >= stoppedAt).length >= 40,
        'load answered while PostgreSQL is stopped',
      );
      for (const instance of [a, b]) {
        const ready = await http(`${instance.url}/health/ready`);
        expect(ready.status).toBe(503);
      }
      restartedAt = Date.now();
      await postgres.start();
      const deadline = Date.now() + 60_000;
      while (!recovered && Date.now() < deadline) {
        const [ra, rb] = await Promise.all([
          lookup(a, loadKey, pending),
          lookup(b, loadKey, pending),
        ]);
        recovered = ra.status === 200 && rb.status === 200;
        if (!recovered) await sleep(200);
      }
    } finally {
      stopping = true;
      await Promise.all(loops);
    }
    if (!recovered) {
      const last = await lookup(a, loadKey, pending);
      throw new Error(`not recovered: ${last.status} ${last.text}\n${a.output().slice(-2500)}`);
    }
    for (const instance of [a, b])
      expect((await http(`${instance.url}/health/ready`)).status).toBe(200);

    // Started after the stop and answered before the restart: PostgreSQL was gone throughout.
    const during = seen.filter((r) => r.at >= stoppedAt && r.at + r.ms <= restartedAt);
    expect(during.length).toBeGreaterThanOrEqual(40);
    // Each refusal comes within 2 s (a database gone is a 503 within 2 s, never a hang): the instances see the database is
    // gone, they do not wait it out. Most come at once.
    const slow = 2000;
    for (const r of during) {
      expect({ status: r.status, slow: r.ms >= slow }).toEqual({ status: 503, slow: false });
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    const times = during.map((r) => r.ms).sort((x, y) => x - y);
    expect(times[Math.floor(times.length / 2)]).toBeLessThan(1000);
    expect(seen.filter((r) => r.status >= 500 && r.status !== 503)).toEqual([]);
  });
});
