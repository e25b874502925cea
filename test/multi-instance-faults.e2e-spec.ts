import { jest } from '@jest/globals';
import pg from 'pg';
import { CONNECT_TIMEOUT_MS } from '../src/database/dialect.js';
import { MainProcess, startMain } from './support/main-process.js';
import { freezePostgres, PostgresServer, startPostgres } from './support/servers.js';
import {
  ADMIN_TOKEN,
  adminHeaders,
  http,
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
} from './support/test-app.js';
import { causeOf, eventually, startWriteLoad, type WriteLoad } from './support/write-load.js';

/**
 * PostgreSQL failing under load, with one instance on each platform on one database: the
 * service's connections terminated by an administrator every 2 s for a minute, and the server
 * restarted. No process ends, no answer is a 500, every write answered 2xx is stored, and the
 * instances recover by themselves.
 */
jest.setTimeout(180_000);
// Real faults at moments of a busy machine's choosing: a run that fails is logged in full, then
// tried once more. A second failure fails the suite.
jest.retryTimes(1, { logErrorsBeforeRetry: true });

const MERCHANT = 'acme';
const WRITERS_PER_INSTANCE = 8;
const READERS_PER_INSTANCE = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Readers of the status lookup and the catalog, counting each status they are answered. */
function startReads(urls: string[], apiKey: string, keys: () => string[]) {
  const statuses = new Map<number, number>();
  const unanswered: string[] = [];
  let stopped = false;
  const run = async (url: string) => {
    while (!stopped) {
      const known = keys();
      const path =
        known.length > 0 && Math.random() < 0.7
          ? `/api/gateway/payment-status/${known[Math.floor(Math.random() * known.length)]}`
          : `/api/crypto-currency-protocol-processors?countryCode=IE&page=${Math.floor(Math.random() * 3)}`;
      let status = 0;
      try {
        const response = await fetch(url + path, { headers: { key: apiKey } });
        status = response.status;
        await response.arrayBuffer();
      } catch (error) {
        // a process that stopped answering shows as status 0 below
        unanswered.push(causeOf(error));
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status !== 200) await sleep(20);
    }
  };
  const running = Promise.all(
    urls.flatMap((url) => Array.from({ length: READERS_PER_INSTANCE }, () => run(url))),
  );
  return {
    statuses,
    unanswered,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/**
 * Milliseconds until a new session is written through the instance at `url`. The limit only ends
 * a run where an instance never writes again; how soon it does is asserted by the tests.
 */
async function writesAgainIn(url: string): Promise<number> {
  return eventually(
    `${url} writes again`,
    async () =>
      (
        await http(`${url}/admin/payment-sessions/probe-${Date.now()}-${Math.random()}`, {
          method: 'PUT',
          headers: adminHeaders,
          body: { merchantId: MERCHANT, status: 'PENDING' },
        })
      ).status === 201,
    30_000,
  );
}

const median = (values: number[]) =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

/**
 * writesAgainIn of each instance in turn, 5 rounds, with nothing wrong: what a write takes under
 * this load on this machine, the baseline a recovery is measured against.
 */
async function baselineOf(instances: MainProcess[]): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const instance of instances) times.push(await writesAgainIn(instance.url));
  }
  return times;
}

describe('PostgreSQL faults under load, Express and Fastify on one database (e2e)', () => {
  let postgres: PostgresServer;
  let instances: MainProcess[] = [];
  let apiKey: string;

  beforeEach(async () => {
    postgres = await startPostgres();
    const env = {
      DATABASE_URL: postgres.url,
      ADMIN_TOKEN,
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      CALLBACKS_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      // The readers are one client: the general limit would answer them 429.
      RATE_LIMIT_PER_MINUTE: '1000000',
    };
    instances = await Promise.all([
      startMain({ ...env, HTTP_PLATFORM: 'express' }),
      startMain({ ...env, HTTP_PLATFORM: 'fastify' }),
    ]);
    const url = instances[0].url;
    expect(
      (
        await http(`${url}/admin/merchants`, {
          method: 'POST',
          headers: adminHeaders,
          body: { id: MERCHANT, name: 'Acme' },
        })
      ).status,
    ).toBe(201);
    const key = await http(`${url}/admin/merchants/${MERCHANT}/api-keys`, {
      method: 'POST',
      headers: adminHeaders,
    });
    apiKey = key.body.apiKey;
    for (const countryCode of ['IE', 'DE']) {
      await http(`${url}/admin/crypto-pairs`, {
        method: 'POST',
        headers: adminHeaders,
        body: { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode },
      });
    }
  });

  afterEach(async () => {
    for (const instance of instances) instance.child.kill('SIGKILL');
    await postgres?.destroy();
  });

  /** Runs `fault` under writes and reads on both instances, then checks what every client saw. */
  async function underLoad(fault: () => Promise<void>) {
    const writes: WriteLoad[] = instances.map((instance) =>
      startWriteLoad(instance.url, MERCHANT, WRITERS_PER_INSTANCE),
    );
    const acknowledged = () => writes.flatMap((w) => [...w.acknowledged]);
    const reads = startReads(
      instances.map((i) => i.url),
      apiKey,
      () => acknowledged().slice(-200),
    );
    await eventually('writes acknowledged', async () => acknowledged().length >= 50);
    await fault();

    // Recovery without a restart: each instance writes again.
    for (const instance of instances) await writesAgainIn(instance.url);
    await sleep(500);
    await Promise.all([...writes.map((w) => w.stop()), reads.stop()]);

    for (const instance of instances) expect(instance.child.exitCode).toBeNull();
    const statuses = new Map<number, number>();
    for (const map of [...writes.map((w) => w.statuses), reads.statuses]) {
      for (const [status, count] of map) statuses.set(status, (statuses.get(status) ?? 0) + count);
    }
    // Only successes and 503 (with Retry-After: see the contract's table); never a 500, and
    // every request answered (0: no answer).
    const unexpected = [...statuses.keys()].filter((s) => ![200, 201, 503].includes(s));
    if (unexpected.length > 0) {
      const faults = instances.flatMap((i) =>
        i
          .output()
          .split('\n')
          .filter((line) => /"level":50.*"err"/.test(line)),
      );
      const unanswered = [
        ...writes.flatMap((w) => [...w.unanswered.values()]),
        ...reads.unanswered,
      ];
      expect({
        unexpected,
        faults: faults.slice(0, 3),
        unanswered: unanswered.slice(0, 3),
      }).toEqual({ unexpected: [], faults: [], unanswered: [] });
    }

    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ validation_key: string }>(
        "SELECT validation_key FROM payment_session WHERE validation_key LIKE 'wl-%'",
      );
      const stored = new Set(rows.map((row) => row.validation_key));
      const lost = acknowledged().filter((key) => !stored.has(key));
      expect(lost).toEqual([]);
      // A write answered 503 may still have committed when the connection broke after its
      // COMMIT reached the server: never one that nobody asked for.
      const refused = new Set(writes.flatMap((w) => [...w.refused]));
      const acked = new Set(acknowledged());
      expect([...stored].filter((key) => !acked.has(key) && !refused.has(key))).toEqual([]);
    } finally {
      await client.end();
    }
    const verified = await http(`${instances[1].url}/admin/audit-events/verify`, {
      headers: adminHeaders,
    });
    expect(verified.body.valid).toBe(true);
    return statuses;
  }

  it("terminates the service's connections every 2 s for 60 s: no crash, no 500, acknowledged writes stored", async () => {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    let terminated = 0;
    let baseline: number[] = [];
    const recoveries: number[] = [];
    try {
      await underLoad(async () => {
        baseline = await baselineOf(instances);
        const until = Date.now() + 60_000;
        while (Date.now() < until) {
          const round = Date.now();
          const { rowCount } = await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity ' +
              'WHERE datname = current_database() AND pid <> pg_backend_pid()',
          );
          terminated += rowCount ?? 0;
          // How long until each instance writes again after its connections were cut.
          for (const instance of instances) recoveries.push(await writesAgainIn(instance.url));
          await sleep(Math.max(0, round + 2000 - Date.now()));
        }
      });
    } finally {
      await admin.end();
    }
    expect(terminated).toBeGreaterThan(30);
    // Measured against a write under the same load without the fault: typically within 1 s more
    // (new connections on top of a write); the slowest of ~60 rounds on a busy machine has taken
    // a few seconds. An instance that stays down, or waits out a time limit every time, fails.
    expect(median(recoveries)).toBeLessThan(median(baseline) + 1000);
    expect(Math.max(...recoveries)).toBeLessThan(15_000);
  });

  it('restarts PostgreSQL (pg_ctl restart -m fast) under load: no crash, no 500, acknowledged writes stored', async () => {
    let baseline: number[] = [];
    let recovered: number[] = [];
    await underLoad(async () => {
      baseline = await baselineOf(instances);
      await postgres.stop('fast');
      await sleep(1000);
      await postgres.start();
      recovered = await Promise.all(instances.map((instance) => writesAgainIn(instance.url)));
    });
    // From the moment PostgreSQL accepts connections again, within 2 s more than a write under
    // the same load takes, and one connection attempt begun while PostgreSQL was starting may wait
    // out its time limit (a loaded machine, once: 2.55 s against a baseline of 0.45 s; 0.19–0.27 s
    // on a quiet one): the instances reconnect by themselves, without waiting out any other limit.
    for (const ms of recovered) {
      expect(ms).toBeLessThan(median(baseline) + CONNECT_TIMEOUT_MS + 2000);
    }
  });

  it('with PostgreSQL frozen (no answer, connections open) answers 503 within 2 s, and recovers when it answers', async () => {
    const missing = (i: number) => `/api/gateway/payment-status/vk-frozen-${i}`;
    const catalogPage = (i: number) => `/api/crypto-currency-protocol-processors?page=${i % 3}`;
    for (const instance of instances) {
      expect((await http(instance.url + catalogPage(0), { headers: { key: apiKey } })).status).toBe(
        200,
      );
    }
    const timed = async (url: string, headers: Record<string, string>) => {
      const started = Date.now();
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
      await response.arrayBuffer();
      return {
        url,
        status: response.status,
        retryAfter: response.headers.get('retry-after') !== null,
        within2s: Date.now() - started < 2000,
      };
    };
    const thaw = freezePostgres(postgres);
    let answers: Awaited<ReturnType<typeof timed>>[];
    try {
      // Requests that arrive together share reads (the catalog's revision, the lookups' batches):
      // each still has its answer within 2 s.
      answers = await Promise.all(
        instances.flatMap((instance) => [
          ...Array.from({ length: 6 }, (_, i) =>
            timed(instance.url + catalogPage(i), { key: apiKey }),
          ),
          ...Array.from({ length: 6 }, (_, i) => timed(instance.url + missing(i), { key: apiKey })),
          timed(`${instance.url}/health/ready`, {}),
        ]),
      );
    } finally {
      thaw();
    }
    for (const answer of answers) {
      expect(answer).toEqual({ ...answer, status: 503, retryAfter: true, within2s: true });
    }
    for (const instance of instances) {
      await eventually(
        `${instance.url} answers again`,
        async () =>
          (await http(instance.url + catalogPage(1), { headers: { key: apiKey } })).status === 200,
        30_000,
      );
    }
  });
});
