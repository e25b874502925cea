import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error.js';
import { ServiceState } from '../common/service-state.js';
import { DatabaseFileMonitor } from './database-file-monitor.js';
import { SqliteConnection } from './sqlite-connection.js';
import { SqliteGroupCommit } from './sqlite-group-commit.js';
import { TypeOrmTransactions, managerOf } from './typeorm-transactions.js';
import type { Tx } from './transactions.js';
import { WriteHealth } from './write-health.js';

describe('TypeOrmTransactions on SQLite', () => {
  let dataSource: DataSource;
  let transactions: TypeOrmTransactions;
  let state: ServiceState;

  let sqlite: SqliteConnection;

  beforeEach(async () => {
    sqlite = new SqliteConnection();
    dataSource = await new DataSource({
      type: 'sqlite',
      database: ':memory:',
      driver: sqlite.driverModule(),
    }).initialize();
    await dataSource.query('PRAGMA foreign_keys = ON');
    await dataSource.query('CREATE TABLE t (name TEXT NOT NULL UNIQUE)');
    // A child whose parent is checked at COMMIT: a COMMIT SQLite refuses, leaving the
    // transaction open.
    await dataSource.query(
      'CREATE TABLE child (parent TEXT REFERENCES t (name) DEFERRABLE INITIALLY DEFERRED)',
    );
    state = new ServiceState();
    transactions = new TypeOrmTransactions(
      dataSource,
      new DatabaseFileMonitor(dataSource, state),
      new WriteHealth(state),
      sqlite,
    );
  });
  afterEach(async () => {
    await transactions.beforeApplicationShutdown();
    await dataSource.destroy();
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

  it('answers every unit of a group whose COMMIT fails with 503, writes nothing, and starts clean', async () => {
    const outcomes = await Promise.allSettled([
      transactions.run((tx) => insert(tx, 'alone')),
      transactions.run((tx) => insert(tx, 'kept only if committed')),
      // A child without its parent: SQLite refuses the COMMIT, not the statement.
      transactions.run((tx) => managerOf(tx).query("INSERT INTO child (parent) VALUES ('nobody')")),
    ]);
    expect(outcomes[0].status).toBe('fulfilled');
    for (const outcome of outcomes.slice(1)) {
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(error.code).toBe('SERVICE_UNAVAILABLE');
    }
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
