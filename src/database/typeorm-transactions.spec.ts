import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { DataSource } from 'typeorm';
import { needsRoot } from '../../test/support/needs-root.js';
import { ApiError } from '../common/errors/api-error.js';
import { ServiceState } from '../common/service-state.js';
import { DatabaseFileMonitor } from './database-file-monitor.js';
import { execute } from './sql.js';
import { ConnectionClosing, SqliteConnection } from './sqlite-connection.js';
import { MAX_GROUP_UNITS, SqliteGroupCommit } from './sqlite-group-commit.js';
import { TypeOrmTransactions, TypeOrmTx, managerOf } from './typeorm-transactions.js';
import { allStatements, type Tx } from './transactions.js';
import { WriteHealth } from './write-health.js';

/**
 * A data source on `database` (`:memory:` or a file, in WAL mode) through `sqlite`, with the
 * specs' two tables: `t`, and `child`, whose parent is checked at COMMIT — a COMMIT SQLite
 * refuses, leaving the transaction open.
 */
async function openDatabase(sqlite: SqliteConnection, database: string): Promise<DataSource> {
  const dataSource = await new DataSource({
    type: 'sqlite',
    database,
    ...(database === ':memory:' ? {} : { enableWAL: true }),
    driver: sqlite.driverModule(),
  }).initialize();
  await dataSource.query('PRAGMA foreign_keys = ON');
  await dataSource.query('CREATE TABLE t (name TEXT NOT NULL UNIQUE)');
  await dataSource.query(
    'CREATE TABLE child (parent TEXT REFERENCES t (name) DEFERRABLE INITIALLY DEFERRED)',
  );
  return dataSource;
}

/** The application's transaction runner on `dataSource`, through `sqlite`. */
function transactionsOn(
  dataSource: DataSource,
  sqlite: SqliteConnection,
  state: ServiceState,
): TypeOrmTransactions {
  return new TypeOrmTransactions(
    dataSource,
    new DatabaseFileMonitor(dataSource, state),
    new WriteHealth(state),
    sqlite,
  );
}

/** Every outcome a refusal with 503 SERVICE_UNAVAILABLE (nothing of those units was written). */
function expectAllUnavailable(outcomes: PromiseSettledResult<unknown>[]): void {
  for (const outcome of outcomes) {
    expect(outcome.status).toBe('rejected');
    const error = (outcome as PromiseRejectedResult).reason as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
  }
}

/** Group hooks that watch nothing. */
const NO_HOOKS = {
  assertWritable: () => undefined,
  committed: () => undefined,
  refused: () => undefined,
};

describe('TypeOrmTransactions on SQLite', () => {
  let dataSource: DataSource;
  let transactions: TypeOrmTransactions;
  let state: ServiceState;

  let sqlite: SqliteConnection;

  beforeEach(async () => {
    sqlite = new SqliteConnection();
    dataSource = await openDatabase(sqlite, ':memory:');
    state = new ServiceState();
    transactions = transactionsOn(dataSource, sqlite, state);
  });
  afterEach(async () => {
    await transactions.beforeApplicationShutdown();
    await dataSource.destroy();
  });

  it('holds the connection TypeORM opens with the given sqlite3 module', async () => {
    // TypeORM's documented `driver` option: TypeORM must open its connection with the module's
    // own Database for SqliteConnection to hold it (docs/decisions.md, "Documented APIs only").
    const held = sqlite.isOpen
      ? 'held'
      : "TypeORM did not open its connection with the sqlite3 module's Database given as its " +
        '`driver` option (src/database/sqlite-connection.ts, driverModule)';
    expect(held).toBe('held');
    expect((await sqlite.run<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  const insert = (tx: Tx, name: string) =>
    managerOf(tx).query('INSERT INTO t (name) VALUES (?)', [name]);
  const names = async () =>
    ((await dataSource.query('SELECT name FROM t ORDER BY name')) as { name: string }[]).map(
      (row) => row.name,
    );

  /** A unit that records when it starts and ends, and how many units ran at once. */
  function recorder() {
    const events: string[] = [];
    let running = 0;
    let most = 0;
    const unit = (name: string) => async () => {
      most = Math.max(most, ++running);
      events.push(name);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return name;
    };
    return { events, unit, most: () => most };
  }

  it('runs one unit at a time; units run ahead go before the waiting ones, each lane in order', async () => {
    const { events, unit, most } = recorder();
    const done = await Promise.all([
      transactions.run(unit('write 1')), // starts at once
      transactions.run(unit('write 2')),
      transactions.run(unit('claim 1'), { ahead: true }),
      transactions.run(unit('write 3')),
      transactions.run(unit('claim 2'), { ahead: true }),
    ]);
    expect(done).toEqual(['write 1', 'write 2', 'claim 1', 'write 3', 'claim 2']);
    expect(events).toEqual(['write 1', 'claim 1', 'claim 2', 'write 2', 'write 3']);
    expect(most()).toBe(1);
  });

  it('rolls a failed unit back and goes on with the next', async () => {
    const failed = transactions.run(async (tx) => {
      await insert(tx, 'lost');
      throw new Error('refused');
    });
    const next = transactions.run(async (tx) => {
      await insert(tx, 'kept');
      return managerOf(tx).query('SELECT name FROM t ORDER BY name');
    });
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toEqual([{ name: 'kept' }]);
  });

  it('commits the units waiting together once, each with its own outcome', async () => {
    const groups: number[] = [];
    // A transaction handle of this data source, as the units of a group are given one.
    const tx = await transactions.run(async (t) => t);
    const group = new SqliteGroupCommit(() => ({ control: (sql) => sqlite.run(sql), tx }), {
      assertWritable: () => undefined,
      committed: (units) => groups.push(units),
      refused: () => undefined,
    });
    const outcomes = await Promise.allSettled([
      group.run((t) => insert(t, 'first')), // starts at once, alone
      group.run((t) => insert(t, 'a')),
      group.run((t) => insert(t, 'a')), // the unique name is taken by the unit before
      group.run(async (t) => {
        await insert(t, 'b');
        return 'b written';
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[3] as PromiseFulfilledResult<string>).value).toBe('b written');
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(await names()).toEqual(['a', 'b', 'first']);
    expect(groups).toEqual([1, 3]);
  });

  it('sends nothing for a group the check before BEGIN refuses: every unit 503, noted once, the next group runs', async () => {
    const sent: string[] = [];
    const refusals: unknown[] = [];
    const tx = await transactions.run(async (t) => t);
    let frozen = true;
    const group = new SqliteGroupCommit(
      () => ({
        control: (sql) => {
          sent.push(sql);
          return sqlite.run(sql);
        },
        tx,
      }),
      {
        assertWritable: (stage) => {
          if (frozen && stage === 'begin') throw Object.assign(new Error('frozen'), { code: 'X' });
        },
        committed: () => undefined,
        refused: (error) => refusals.push(error),
      },
    );
    const outcomes = await Promise.allSettled([
      group.run((t) => insert(t, 'one')),
      group.run((t) => insert(t, 'two')),
    ]);
    expectAllUnavailable(outcomes);
    expect(sent).toEqual([]);
    expect(refusals.map(String)).toEqual(['Error: frozen', 'Error: frozen']);
    expect(await names()).toEqual([]);
    frozen = false;
    await group.run((t) => insert(t, 'after'));
    expect(sent[0]).toBe('BEGIN IMMEDIATE');
    expect(await names()).toEqual(['after']);
  });

  it('answers every unit of a group whose COMMIT fails with 503, writes nothing, and starts clean', async () => {
    const outcomes = await Promise.allSettled([
      transactions.run((tx) => insert(tx, 'alone')),
      transactions.run((tx) => insert(tx, 'kept only if committed')),
      // A child without its parent: SQLite refuses the COMMIT, not the statement.
      transactions.run((tx) => managerOf(tx).query("INSERT INTO child (parent) VALUES ('nobody')")),
    ]);
    expect(outcomes[0].status).toBe('fulfilled');
    expectAllUnavailable(outcomes.slice(1));
    expect(await names()).toEqual(['alone']);
    // The next unit runs in a transaction of its own, not inside one left open.
    await transactions.run((tx) => insert(tx, 'after'));
    await dataSource.query('SELECT 1'); // the connection answers outside any transaction
    expect(await names()).toEqual(['after', 'alone']);
  });

  it('rolls back a transaction some failure left open before the next group begins', async () => {
    await dataSource.query('BEGIN');
    await dataSource.query("INSERT INTO t (name) VALUES ('left open')");
    await transactions.run((tx) => insert(tx, 'next'));
    expect(await names()).toEqual(['next']);
  });

  it('runs a statement asked for as the one before it ends, with no unit waiting', async () => {
    const second = transactions
      .outside('PRAGMA secure_delete = ON')
      .then(() => transactions.outside('PRAGMA wal_checkpoint(TRUNCATE)'));
    await expect(second).resolves.toBeUndefined();
  });

  it('fails the runs of a prepared statement SQLite cannot prepare, and prepares it again next time', async () => {
    const sql = 'INSERT INTO later (name) VALUES (?)';
    const runs = [sqlite.run(sql, ['a']), sqlite.run(sql, ['b'])];
    for (const run of runs) await expect(run).rejects.toThrow(/no such table: later/);
    await dataSource.query('CREATE TABLE later (name TEXT)');
    await expect(sqlite.run(sql, ['c'])).resolves.toEqual({ rows: [], affected: 1 });
    await expect(sqlite.run('SELECT name FROM later')).resolves.toEqual({
      rows: [{ name: 'c' }],
      affected: 0,
    });
  });

  it('fails a unit whose statement cannot be prepared, alone: the group goes on', async () => {
    const outcomes = await Promise.allSettled([
      transactions.run((tx) => insert(tx, 'first')),
      transactions.run((tx) => execute(tx, 'INSERT INTO nowhere (name) VALUES (?)', ['lost'])),
      transactions.run((tx) => insert(tx, 'kept')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/no such table/);
    expect(await names()).toEqual(['first', 'kept']);
  });

  it('answers every unit with 503 once the connection is closed, and a statement never prepared rejects', async () => {
    // sqlite3 answers a statement prepared on a closed connection at once, inside `prepare`.
    const closing = new SqliteConnection();
    const closed = await openDatabase(closing, ':memory:');
    const writes = transactionsOn(closed, closing, state);
    await closed.destroy(); // no statement of ours prepared yet: SQLite closes it
    const never = 'SELECT name FROM t WHERE name = ?';
    await expect(closing.run(never, ['x'])).rejects.toThrow(/closed/i);
    await expect(closing.run(never, ['x'])).rejects.toThrow(/closed/i); // not kept as prepared
    const outcomes = await Promise.allSettled([
      writes.run((tx) => insert(tx, 'a')),
      writes.run((tx) => insert(tx, 'b')),
    ]);
    expectAllUnavailable(outcomes);
    await writes.beforeApplicationShutdown();
  });

  it('answers every unit of a group whose connection throws instead of rejecting', async () => {
    const tx = await transactions.run(async (t) => t);
    const throwing = new SqliteGroupCommit(
      () => ({
        control: () => {
          throw new Error('thrown, not rejected');
        },
        tx,
      }),
      NO_HOOKS,
    );
    const outcomes = await Promise.allSettled([
      throwing.run((t) => insert(t, 'a')),
      throwing.run((t) => insert(t, 'b')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await names()).toEqual([]);
  });

  it('closes the connection however late a write arrives once its statements were finalized', async () => {
    // A statement prepared after them would keep SQLite from closing the connection (SQLITE_BUSY).
    const closing = new SqliteConnection();
    const closed = await openDatabase(closing, ':memory:');
    const writes = transactionsOn(closed, closing, state);
    await writes.run((tx) => execute(tx, 'INSERT INTO t (name) VALUES (?)', ['before']));
    await writes.beforeApplicationShutdown();
    const late = writes.run((tx) => execute(tx, 'DELETE FROM t WHERE name = ?', ['before']));
    await expect(late).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(closing.run('SELECT name FROM t')).rejects.toBeInstanceOf(ConnectionClosing);
    await expect(closed.destroy()).resolves.toBeUndefined();
  });

  it('answers a statement between groups and every unit when no connection can be had', async () => {
    const none = new SqliteGroupCommit(() => {
      throw new Error('no connection');
    }, NO_HOOKS);
    await expect(none.outside('PRAGMA wal_checkpoint(TRUNCATE)')).rejects.toThrow('no connection');
    await expect(none.run((t) => insert(t, 'a'))).rejects.toBeInstanceOf(ApiError);
  });

  it('runs a statement between groups, outside any transaction', async () => {
    const done = Promise.all([
      transactions.run((tx) => insert(tx, 'one')),
      transactions.outside('PRAGMA wal_checkpoint(TRUNCATE)'),
      transactions.run((tx) => insert(tx, 'two')),
    ]);
    await expect(done).resolves.toBeDefined();
    expect(await names()).toEqual(['one', 'two']);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SqliteGroupCommit on a SQLite file', () => {
  let dir: string;
  let file: string;
  let dataSource: DataSource;
  let sqlite: SqliteConnection;
  /** The group's own statements, in the order sent. */
  let sent: string[];
  let groups: number[];
  let group: SqliteGroupCommit;
  let tx: Tx;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    file = join(dir, 'db.sqlite');
    sqlite = new SqliteConnection();
    dataSource = await openDatabase(sqlite, file);
    sent = [];
    groups = [];
    const runner = dataSource.createQueryRunner();
    tx = new TypeOrmTx(runner.manager, sqlite);
    group = new SqliteGroupCommit(
      () => ({
        control: (sql) => {
          sent.push(sql);
          return sqlite.run(sql);
        },
        tx,
      }),
      {
        assertWritable: () => undefined,
        committed: (units) => groups.push(units),
        refused: () => undefined,
      },
    );
  });
  afterEach(async () => {
    await sqlite.finalize();
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (t: Tx, name: string) =>
    managerOf(t).query('INSERT INTO t (name) VALUES (?)', [name]);

  /** The names in the file, read by a connection of its own: what was committed. */
  async function committedNames(): Promise<string[]> {
    const other = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
    try {
      const rows = await new Promise<{ name: string }[]>((resolve, reject) =>
        other.all('SELECT name FROM t ORDER BY name', (error, rows: { name: string }[]) =>
          error ? reject(error) : resolve(rows),
        ),
      );
      return rows.map((row) => row.name);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  }

  /** A unit that writes `names`, and fails afterwards when `fails`. */
  const unit =
    (names: string[], fails = false) =>
    async (t: Tx) => {
      for (const name of names) await insert(t, name);
      if (fails) throw new Error(`unit ${names.join('+')} refused`);
      return names.join('+');
    };

  /**
   * The units as one group: a first unit, alone in its group, holds the connection while they
   * arrive, so they wait and then run together.
   */
  function groupOf(units: ((t: Tx) => Promise<unknown>)[]) {
    const first = group.run(unit(['first']));
    return Promise.all([first, Promise.allSettled(units.map((u) => group.run(u)))]);
  }

  it('keeps the writes of the units around a failed one and none of the failed one', async () => {
    const [, outcomes] = await groupOf([
      unit(['a1', 'a2']),
      unit(['b1', 'b2'], true),
      unit(['c']),
      unit(['d'], true),
      unit(['e']),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/b1\+b2 refused/);
    expect(await committedNames()).toEqual(['a1', 'a2', 'c', 'e', 'first']);
    expect(groups).toEqual([1, 5]);
    // The second group: a savepoint per unit, released when it ends; a failed unit rolled back to
    // its own first; one COMMIT.
    const ok = ['SAVEPOINT unit', 'RELEASE unit'];
    const failed = ['SAVEPOINT unit', 'ROLLBACK TO unit', 'RELEASE unit'];
    expect(sent.slice(sent.lastIndexOf('BEGIN IMMEDIATE'))).toEqual([
      'BEGIN IMMEDIATE',
      ...ok,
      ...failed,
      ...ok,
      ...failed,
      ...ok,
      'COMMIT',
    ]);
  });

  it('sends what ends a unit with what comes next, in one call of the driver, with the same outcomes', async () => {
    const batches: string[][] = [];
    group = new SqliteGroupCommit(
      () => ({
        control: (sql) => {
          batches.push([sql]);
          return sqlite.run(sql);
        },
        controls: (statements) => {
          batches.push([...statements]);
          return sqlite.exec(statements);
        },
        tx,
      }),
      {
        assertWritable: () => undefined,
        committed: (units) => groups.push(units),
        refused: () => undefined,
      },
    );
    const [, outcomes] = await groupOf([
      unit(['a1', 'a2']),
      unit(['b1', 'b2'], true),
      unit(['c']),
      unit(['d'], true),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
    ]);
    expect(await committedNames()).toEqual(['a1', 'a2', 'c', 'first']);
    expect(groups).toEqual([1, 4]);
    expect(batches.slice(-5)).toEqual([
      ['BEGIN IMMEDIATE', 'SAVEPOINT unit'],
      ['RELEASE unit', 'SAVEPOINT unit'],
      ['ROLLBACK TO unit', 'RELEASE unit', 'SAVEPOINT unit'],
      ['RELEASE unit', 'SAVEPOINT unit'],
      ['ROLLBACK TO unit', 'RELEASE unit', 'COMMIT'],
    ]);
  });

  it('runs nothing of a batch after a statement of it that fails', async () => {
    await expect(sqlite.exec(['BEGIN IMMEDIATE', 'RELEASE missing', 'COMMIT'])).rejects.toThrow(
      /no such savepoint/,
    );
    // The COMMIT after the failed RELEASE did not run: the transaction is still open.
    await expect(sqlite.run('BEGIN IMMEDIATE')).rejects.toThrow(/within a transaction/);
    await sqlite.run('ROLLBACK');
  });

  it('undoes failed units anywhere in a full group', async () => {
    const name = (i: number) => `u${String(i).padStart(2, '0')}`;
    const units = Array.from({ length: MAX_GROUP_UNITS }, (_, i) => unit([name(i)], i % 3 === 1));
    const [, outcomes] = await groupOf(units);
    const kept = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [name(i)] : []));
    expect(kept).toHaveLength(MAX_GROUP_UNITS - Math.floor((MAX_GROUP_UNITS + 1) / 3));
    expect(await committedNames()).toEqual([...kept, 'first'].sort());
    expect(groups).toEqual([1, MAX_GROUP_UNITS]);
  });

  it('undoes a unit whose own write breaks a constraint alone; a later unit writes the same row', async () => {
    const [, outcomes] = await groupOf([
      unit(['x']),
      unit(['y', 'x']), // its second row breaks the unique name: its `y` is undone with it
      unit(['y']),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(await committedNames()).toEqual(['first', 'x', 'y']);
  });

  it('undoes every statement a failed unit sent together, however late one of them runs', async () => {
    const late = (t: Tx) => sleep(30).then(() => insert(t, 'late'));
    const [, outcomes] = await groupOf([
      unit(['a']),
      (t: Tx) => allStatements([Promise.reject(new Error('refused at once')), late(t)]),
      // Still running when the late statement would run, were its unit over by then.
      async (t: Tx) => {
        await sleep(60);
        await insert(t, 'c');
      },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/refused at once/);
    expect(await committedNames()).toEqual(['a', 'c', 'first']);
  });

  it('fails every unit when the COMMIT fails, those that succeeded and those rolled back alike', async () => {
    const [, outcomes] = await groupOf([
      unit(['a']),
      unit(['b'], true),
      // A child without its parent: SQLite refuses the COMMIT, not the statement.
      (t: Tx) => managerOf(t).query("INSERT INTO child (parent) VALUES ('nobody')"),
      unit(['c']),
    ]);
    expectAllUnavailable(outcomes);
    expect(await committedNames()).toEqual(['first']);
    expect(sent.slice(-2)).toEqual(['COMMIT', 'ROLLBACK']);
    // The next group starts clean.
    await group.run(unit(['after']));
    expect(await committedNames()).toEqual(['after', 'first']);
  });

  it('ends the group when a failed unit cannot be rolled back to its savepoint, never undoing another unit instead', async () => {
    const [, outcomes] = await groupOf([
      unit(['a']),
      async (t: Tx) => {
        await insert(t, 'b');
        // Its savepoint gone, its ROLLBACK TO fails: there is none of that name to go back to.
        await managerOf(t).query('RELEASE unit');
        throw new Error('refused after its savepoint was released');
      },
      unit(['c']),
    ]);
    expectAllUnavailable(outcomes);
    expect(sent.slice(-2)).toEqual(['ROLLBACK TO unit', 'ROLLBACK']);
    expect(await committedNames()).toEqual(['first']);
    await group.run(unit(['after']));
    expect(await committedNames()).toEqual(['after', 'first']);
  });
});

// SQLite maps the log's index (`-shm`) into memory; a write to that mapping while the file is
// immutable ends the process with SIGBUS (docs/decisions.md, "A frozen shared-memory file").
// `chattr` needs root, as the fault specs in test/ do (needsRoot says so when it fails).
describe('TypeOrmTransactions on a SQLite file whose index is made immutable', () => {
  let dir: string;
  let file: string;
  let sqlite: SqliteConnection;
  let dataSource: DataSource;
  let state: ServiceState;
  let monitor: DatabaseFileMonitor;
  let transactions: TypeOrmTransactions;

  const chattr = (flag: '+i' | '-i') => needsRoot('chattr', [flag, `${file}-shm`]);
  const insert = (tx: Tx, name: string) =>
    managerOf(tx).query('INSERT INTO t (name) VALUES (?)', [name]);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'frozen-index-'));
    file = join(dir, 'db.sqlite');
    sqlite = new SqliteConnection();
    dataSource = await openDatabase(sqlite, file);
    state = new ServiceState();
    monitor = new DatabaseFileMonitor(dataSource, state);
    monitor.onApplicationBootstrap();
    transactions = new TypeOrmTransactions(dataSource, monitor, new WriteHealth(state), sqlite);
  });
  afterEach(async () => {
    Logger.overrideLogger(false);
    try {
      chattr('-i');
    } finally {
      monitor.onModuleDestroy();
      await sqlite.finalize();
      await dataSource.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('touches nothing while the index refuses writes (503, readiness told, logged once), and takes writes again once it does', async () => {
    const logged: string[] = [];
    const collect =
      (level: string) =>
      (message: unknown, ...rest: unknown[]) => {
        const text = typeof message === 'string' ? message : String(rest[0]);
        logged.push(`${level} ${text}`);
      };
    Logger.overrideLogger({ log: collect('log'), warn: collect('warn'), error: collect('error') });
    await transactions.run((tx) => insert(tx, 'before'));
    chattr('+i');
    const refused = await transactions.run((tx) => insert(tx, 'frozen')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('SERVICE_UNAVAILABLE');
    expect(state.writesRefused).toBe(true);
    // Once committed, a change stands whatever the index says after.
    expect(() => monitor.assertPresent('committed')).not.toThrow();
    // A checkpoint between transactions (after an erasure) is not sent either.
    await expect(transactions.outside('PRAGMA wal_checkpoint(TRUNCATE)')).rejects.toMatchObject({
      code: 'SQLITE_READONLY',
    });

    chattr('-i');
    await transactions.run((tx) => insert(tx, 'after'));
    expect(state.writesRefused).toBe(false);
    const rows = await dataSource.query<{ name: string }[]>('SELECT name FROM t ORDER BY name');
    expect(rows.map((row) => row.name)).toEqual(['after', 'before']);
    expect(logged).toEqual([
      'warn The database refuses writes; answering 503 to them and to readiness until it takes them again',
      'log The database takes writes again',
    ]);
  });
});
