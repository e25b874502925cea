import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { MainProcess, startMain } from './support/main-process.js';
import { needsRoot } from './support/needs-root.js';
import { ADMIN_TOKEN, adminHeaders, http } from './support/test-app.js';
import { eventually, startWriteLoad, type WriteLoad } from './support/write-load.js';

/**
 * A SQLite database that refuses writes under concurrent writers — its file system full, its
 * files made immutable — and then takes them again: every write answered 2xx is on disk after a
 * kill and a restart, nothing else is, and the service recovers by itself. These are real faults
 * of a real file system: a small tmpfs filled to the last byte, `chattr +i`. Both need root (CI
 * runs as root); without it the tests fail rather than pass without trying.
 */

// Real faults at moments of a busy machine's choosing: a run that fails is logged in full, then
// tried once more. A second failure fails the suite.
jest.retryTimes(1, { logErrorsBeforeRetry: true });

const MERCHANT = 'acme';
const WRITERS = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes into `dir` until its file system has no byte left; returns the file written. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 512]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

async function status(url: string): Promise<number> {
  return (await fetch(url)).status;
}

/** The stored sessions, the integrity check and the audited keys, read from the file itself. */
async function readDatabase(file: string) {
  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
  const all = <T>(sql: string) =>
    new Promise<T[]>((resolve, reject) =>
      db.all(sql, (error, rows) => (error ? reject(error) : resolve(rows as T[]))),
    );
  try {
    const sessions = await all<{ validation_key: string }>(
      "SELECT validation_key FROM payment_session WHERE merchant_id = 'acme'",
    );
    const transitions = await all<{ validation_key: string }>(
      'SELECT validation_key FROM payment_session_transition',
    );
    const callbacks = await all<{ validation_key: string }>('SELECT validation_key FROM callback');
    const audited = await all<{ target: string }>(
      "SELECT target FROM audit_event WHERE action = 'reportPaymentSession'",
    );
    const [integrity] = await all<{ integrity_check: string }>('PRAGMA integrity_check');
    return {
      sessions: new Set(sessions.map((row) => row.validation_key)),
      transitions: transitions.map((row) => row.validation_key),
      callbacks: callbacks.map((row) => row.validation_key),
      audited: audited.map((row) => row.target),
      integrity: integrity.integrity_check,
    };
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

describe('SQLite refusing writes under concurrent writers (e2e)', () => {
  let dir: string;
  /** A tmpfs mounted for the test, when it has one. */
  let mount: string | undefined;
  let file: string;
  let main: MainProcess | undefined;
  let load: WriteLoad | undefined;

  const env = () => ({
    DATABASE_URL: `sqlite:${file}`,
    ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    // Attempts to the callbacks' dead address would be writes of their own: kept out of the count.
    CALLBACKS_ENABLED: 'false',
  });

  /** Starts the service on a database in `dir` (a small tmpfs of its own with `tmpfs`). */
  async function start(options: { tmpfs: boolean }) {
    if (options.tmpfs) {
      mount = dir;
      needsRoot('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mount]);
    }
    file = join(dir, 'gateway.sqlite');
    main = await startMain(env());
    const created = await http(`${main.url}/admin/merchants`, {
      method: 'POST',
      headers: adminHeaders,
      body: { id: MERCHANT, name: 'Acme' },
    });
    expect(created.status).toBe(201);
    return main.url;
  }

  /** Runs `step`; when it fails, the service's log says why. */
  async function withOutput<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      const log = main?.output().split('\n').slice(-40).join('\n');
      throw new Error(`${(error as Error).message}\nThe service's last log lines:\n${log}`, {
        cause: error,
      });
    }
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-faults-'));
    mount = undefined;
  });

  afterEach(async () => {
    await load?.stop();
    main?.child.kill('SIGKILL');
    await main?.exited;
    main = undefined;
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        execFileSync('chattr', ['-i', file + suffix], { stdio: 'ignore' });
      } catch {
        // not there, or not immutable
      }
    }
    if (mount) execFileSync('umount', [mount], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Kills the process (no clean shutdown: what is acknowledged must already be on disk), starts
   * it again on the same file, checks the audit chain over HTTP, stops it, and compares the file
   * with what was acknowledged. `unknown`: keys whose request got no answer because the process
   * ended — their COMMIT may have reached the disk before the end, so they may or may not be
   * stored; every key answered with an error must not be.
   */
  async function expectAcknowledgedEqualsStored(
    acknowledged: Set<string>,
    unknown: ReadonlySet<string> = new Set(),
  ) {
    main!.child.kill('SIGKILL');
    await main!.exited;
    main = await startMain(env());
    const verified = await http(`${main.url}/admin/audit-events/verify`, { headers: adminHeaders });
    expect(verified.status).toBe(200);
    expect(verified.body.valid).toBe(true);
    main.child.kill('SIGTERM');
    await main.exited;
    main = undefined;

    const stored = await readDatabase(file);
    expect(stored.integrity).toBe('ok');
    const lost = [...acknowledged].filter((key) => !stored.sessions.has(key));
    const unacknowledged = [...stored.sessions].filter(
      (key) => !acknowledged.has(key) && !unknown.has(key),
    );
    expect({ lost, unacknowledged }).toEqual({ lost: [], unacknowledged: [] });
    // Each stored session with its transition, its callback and its audit event: all or nothing.
    for (const rows of [stored.transitions, stored.callbacks, stored.audited]) {
      expect([...rows].sort()).toEqual([...stored.sessions].sort());
    }
  }

  it('a file system filled and freed: 503 while full, readiness 503, then recovery without a restart; acknowledged = stored', async () => {
    const url = await start({ tmpfs: true });
    load = startWriteLoad(url, MERCHANT, WRITERS);
    await eventually('writes acknowledged', async () => load!.acknowledged.size >= 50);

    const filler = fill(dir);
    await eventually('a write refused with 503', async () => (load!.statuses.get(503) ?? 0) > 0);
    await eventually('readiness 503', async () => (await status(`${url}/health/ready`)) === 503);
    const refused = await http(`${url}/admin/payment-sessions/while-full`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { merchantId: MERCHANT, status: 'PENDING' },
    });
    if (refused.status === 503) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body.errors[0].errorCode).toBe('SERVICE_UNAVAILABLE');
    }
    await sleep(2000); // writers keep trying against the full disk

    rmSync(filler);
    await eventually(
      'readiness 200 again',
      async () => (await status(`${url}/health/ready`)) === 200,
    );
    const afterFree = load.acknowledged.size;
    await eventually(
      'writes acknowledged again',
      async () => load!.acknowledged.size > afterFree + 100,
    );
    await load.stop();

    expect([...load.statuses.keys()].filter((code) => code !== 201 && code !== 503)).toEqual([]);
    const acknowledged = new Set(load.acknowledged);
    if (refused.status === 200 || refused.status === 201) acknowledged.add('while-full');
    await expectAcknowledgedEqualsStored(acknowledged);
  }, 120_000);

  // On the machine's own file system: tmpfs does not refuse writes to files already open.
  // The kernel refuses some writes to an immutable file that is already open (truncating the log
  // when SQLite starts it over, say) and not others (appending to it): whether and when commits
  // fail depends on where SQLite is in its log. Whatever happens, no write is acknowledged that
  // is not stored, and writes come back. SQLite keeps the log's index (`-shm`) mapped in memory:
  // a write to a page of that mapping while the file is immutable is refused by the kernel with
  // SIGBUS, which ends the process at once (no handler can resume it). The service asks the file
  // before each transaction (src/database/database-file-monitor.ts), so only a COMMIT under way at
  // the moment of the freeze can meet that end (docs/decisions.md, "A frozen shared-memory file":
  // 2 runs of 15). That is the one end allowed here: started again, the service takes writes and
  // has lost none that it acknowledged. A process that lives must recover by itself.
  //
  // Frozen without its index, the database and its log never end the process: only the index is
  // mapped in memory.
  it.each([
    { frozen: 'the database and its log', suffixes: ['', '-wal'], mayEnd: false },
    { frozen: 'the database, its log and its index', suffixes: ['', '-wal', '-shm'], mayEnd: true },
  ])(
    '$frozen made immutable and mutable again: only 2xx or 503, then recovery; acknowledged = stored',
    async ({ suffixes, mayEnd }) => {
      const url = await start({ tmpfs: false });
      let ended: { signal: NodeJS.Signals | null; code: number | null } | undefined;
      void main!.exited.then((exit) => (ended = exit));
      load = startWriteLoad(url, MERCHANT, WRITERS);
      await eventually('writes acknowledged', async () => load!.acknowledged.size >= 50);

      const files = suffixes.map((suffix) => `${file}${suffix}`);
      needsRoot('chattr', ['+i', ...files]);
      await sleep(5000);

      needsRoot('chattr', ['-i', ...files]);
      let readiness = '';
      await withOutput(() =>
        eventually(
          'readiness 200 again (or the process ended)',
          async () => {
            if (ended) return true;
            const answer = await fetch(`${url}/health/ready`, {
              signal: AbortSignal.timeout(5000),
            });
            readiness = `${answer.status} ${await answer.text()}`;
            return answer.status === 200;
          },
          60_000,
        ).catch((error: Error) => {
          throw new Error(`${error.message}; readiness last answered: ${readiness}`);
        }),
      );
      const acknowledged = new Set(load.acknowledged);
      let unknown = new Set<string>();
      const unexpected = (statuses: Map<number, number>, allowed: number[]) =>
        [...statuses.keys()].filter((code) => !allowed.includes(code));
      if (ended) {
        expect({ signal: ended.signal, code: ended.code, mayEnd }).toEqual({
          signal: 'SIGBUS',
          code: null,
          mayEnd: true,
        });
        await load.stop();
        // Requests in flight when the process ended got no answer (0): none acknowledged; those whose
        // COMMIT reached the disk before the end are stored (docs/operations.md).
        expect(unexpected(load.statuses, [201, 503, 0])).toEqual([]);
        unknown = new Set(load.unanswered.keys());
        main = await startMain(env());
        // New keys: the first load's would be identical repeats (200), not new writes.
        load = startWriteLoad(main.url, MERCHANT, WRITERS, 'after-restart');
      }
      const afterThaw = load.acknowledged.size;
      await eventually(
        'writes acknowledged again',
        async () => load!.acknowledged.size > afterThaw + 100,
      );
      await load.stop();
      load.acknowledged.forEach((key) => acknowledged.add(key));

      expect(unexpected(load.statuses, [201, 503])).toEqual([]);
      await expectAcknowledgedEqualsStored(acknowledged, unknown);
    },
    120_000,
  );
});
