import { DataSource } from 'typeorm';
import { ServiceState } from '../common/service-state.js';
import { DatabaseFileMonitor } from './database-file-monitor.js';
import { TypeOrmTransactions, managerOf } from './typeorm-transactions.js';

describe('TypeOrmTransactions on SQLite', () => {
  let dataSource: DataSource;
  let transactions: TypeOrmTransactions;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'sqlite', database: ':memory:' }).initialize();
    await dataSource.query('CREATE TABLE t (name TEXT NOT NULL)');
    transactions = new TypeOrmTransactions(
      dataSource,
      new DatabaseFileMonitor(dataSource, new ServiceState()),
    );
  });
  afterAll(() => dataSource.destroy());

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
      await managerOf(tx).query("INSERT INTO t (name) VALUES ('lost')");
      throw new Error('refused');
    });
    const next = transactions.run(async (tx) => {
      await managerOf(tx).query("INSERT INTO t (name) VALUES ('kept')");
      return managerOf(tx).query('SELECT name FROM t ORDER BY name');
    });
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toEqual([{ name: 'kept' }]);
  });
});
