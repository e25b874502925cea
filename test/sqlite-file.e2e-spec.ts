import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import sqlite3 from 'sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transactions } from '../src/database/transactions.js';
import { managerOf } from '../src/database/typeorm-transactions.js';
import { MainProcess, startMain } from './support/main-process.js';
import {
  ADMIN_TOKEN,
  adminHeaders,
  expectEnvelope,
  http,
  startTestApp,
  TestApp,
} from './support/test-app.js';

const PAIR = { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' };
const CATALOG = '/api/crypto-currency-protocol-processors';

describe('SQLite durability (e2e)', () => {
  it('commits with synchronous = FULL on the connection that writes, in WAL mode', async () => {
    const t = await startTestApp();
    try {
      const [setting] = await t.app
        .get(Transactions)
        .run((tx) => managerOf(tx).query('PRAGMA synchronous'));
      const [mode] = await t.app
        .get(Transactions)
        .run((tx) => managerOf(tx).query('PRAGMA journal_mode'));
      expect({ ...setting, ...mode }).toEqual({ synchronous: 2, journal_mode: 'wal' });
    } finally {
      await t.close();
    }
  });
});

describe('SQLite: another process holding the write lock (e2e)', () => {
  it('answers 503 with Retry-After while another process holds the database, and recovers', async () => {
    const locked = await startTestApp();
    const other = new sqlite3.Database(join(locked.dir, 'gateway.sqlite'));
    const run = (sql: string) =>
      new Promise<void>((resolve, reject) =>
        other.exec(sql, (error) => (error ? reject(error) : resolve())),
      );
    const pair = {
      currencyCode: 'USDT',
      currencyName: 'Tether',
      protocol: 'TRC20',
      countryCode: 'IE',
    };
    try {
      // Another process takes the write lock and keeps it past the service's busy timeout.
      await run('BEGIN IMMEDIATE; UPDATE catalog_revision SET revision = revision + 1;');
      const r = await http(locked.url + '/admin/crypto-pairs', {
        method: 'POST',
        headers: adminHeaders,
        body: pair,
      });
      expectEnvelope(r, 503, 'SERVICE_UNAVAILABLE');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.text).not.toMatch(/SQLITE|sqlite3|stack|\\.ts/);
      const live = await http(locked.url + '/health/live');
      expect(live.status).toBe(200);
      await run('COMMIT;');
      await new Promise<void>((resolve) => other.close(() => resolve()));
      const after = await http(locked.url + '/admin/crypto-pairs', {
        method: 'POST',
        headers: adminHeaders,
        body: pair,
      });
      expect(after.status).toBe(201);
      const listed = await http(locked.url + CATALOG);
      expect(listed.body.page.total).toBe(1);
    } finally {
      await locked.close();
    }
  }, 60000);
});

describe('SQLite: the file deleted or replaced under a running process (e2e)', () => {
  let dir: string;
  let file: string;
  let t: TestApp;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-file-'));
    file = join(dir, 'gateway.sqlite');
    t = await startTestApp({ DATABASE_URL: `sqlite:${file}` });
    await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }], cryptoPairs: [PAIR] });
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const put = (app: TestApp, key: string) =>
    http(`${app.url}/admin/payment-sessions/${key}`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { merchantId: 'acme', status: 'PENDING' },
    });

  const remove = {
    deleted: () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    },
    replaced: () => {
      copyFileSync(file, `${file}.copy`);
      renameSync(`${file}.copy`, file);
    },
  };

  it.each(Object.keys(remove) as (keyof typeof remove)[])(
    'when %s: writes, reads and readiness answer 503, nothing is acknowledged, liveness stays up',
    async (how) => {
      expect((await put(t, 'vk_before_1')).status).toBe(201);
      remove[how]();

      const write = await put(t, 'vk_after_1');
      expectEnvelope(write, 503, 'SERVICE_UNAVAILABLE');
      expect(Number(write.headers.get('retry-after'))).toBeGreaterThan(0);
      const patch = await http(`${t.url}/admin/crypto-pairs/1`, {
        method: 'PATCH',
        headers: adminHeaders,
        body: { enabled: false },
      });
      expectEnvelope(patch, 503, 'SERVICE_UNAVAILABLE');
      expectEnvelope(await http(t.url + CATALOG), 503, 'SERVICE_UNAVAILABLE');
      expectEnvelope(await http(`${t.url}/health/ready`), 503, 'SERVICE_UNAVAILABLE');
      expect((await http(`${t.url}/health/live`)).status).toBe(200);

      // A new process on the file now on disk: the refused writes are not there.
      await t.close();
      t = await startTestApp({ DATABASE_URL: `sqlite:${file}` });
      const history = await http(`${t.url}/admin/payment-sessions/vk_after_1/history`, {
        headers: adminHeaders,
      });
      expectEnvelope(history, 404, 'NOT_FOUND');
      const pairs = await http(`${t.url}/admin/crypto-pairs`, { headers: adminHeaders });
      expect(pairs.status).toBe(200);
      for (const pair of pairs.body.payload) expect(pair.enabled).toBe(true);
    },
  );

  it('notices a deletion between writes within a second, without a write to reveal it', async () => {
    remove.deleted();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expectEnvelope(await http(`${t.url}/health/ready`), 503, 'SERVICE_UNAVAILABLE');
    expectEnvelope(await http(t.url + CATALOG), 503, 'SERVICE_UNAVAILABLE');
  });
});

describe('SQLite: a file of the database deleted under a process then killed (e2e)', () => {
  let dir: string;
  let main: MainProcess | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-killed-'));
  });
  afterEach(() => {
    main?.child.kill('SIGKILL');
    main = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const file = () => join(dir, 'gateway.sqlite');
  const start = () => startMain({ DATABASE_URL: `sqlite:${file()}`, ADMIN_TOKEN });
  const put = (process: MainProcess, key: string) =>
    http(`${process.url}/admin/payment-sessions/${key}`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { merchantId: 'acme', status: 'PENDING' },
    });
  const stored = async (process: MainProcess, key: string) =>
    (
      await http(`${process.url}/admin/payment-sessions/${key}/history`, {
        headers: adminHeaders,
      })
    ).status === 200;

  it.each(['-wal', '-shm'])(
    'keeps every acknowledged write when %s is deleted, and acknowledges none after',
    async (suffix) => {
      main = await start();
      const created = await http(`${main.url}/admin/merchants`, {
        method: 'POST',
        headers: adminHeaders,
        body: { id: 'acme', name: 'Acme' },
      });
      expect(created.status).toBe(201);
      const acknowledged: string[] = [];
      for (let i = 0; i < 10; i++) {
        const r = await put(main, `vk_before_${i}`);
        if (r.status === 201) acknowledged.push(`vk_before_${i}`);
      }
      expect(acknowledged).toHaveLength(10);
      expect(existsSync(file() + suffix)).toBe(true);
      rmSync(file() + suffix);

      const after: number[] = [];
      for (let i = 0; i < 20; i++) after.push((await put(main, `vk_after_${i}`)).status);
      expect(after.filter((status) => status !== 503)).toEqual([]);
      expect((await http(`${main.url}/health/ready`)).status).toBe(503);

      main.child.kill('SIGKILL');
      await main.exited;
      main = await start();
      for (const key of acknowledged)
        expect({ key, stored: await stored(main, key) }).toEqual({ key, stored: true });
      for (let i = 0; i < 20; i++) {
        expect({ i, stored: await stored(main, `vk_after_${i}`) }).toEqual({ i, stored: false });
      }
    },
    60_000,
  );
});
