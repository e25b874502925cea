import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ServiceState } from '../common/service-state.js';
import type { AppConfig } from '../config/app-config.js';
import { PreparedReads } from '../database/prepared-reads.js';
import { DatabaseFileMonitor } from '../database/database-file-monitor.js';
import { dataSourceOptions } from '../schema/data-source-options.js';
import { SqliteConnection } from '../database/sqlite-connection.js';
import type { Tx } from '../database/transactions.js';
import { TypeOrmTransactions, TypeOrmTx, managerOf } from '../database/typeorm-transactions.js';
import { WriteHealth } from '../database/write-health.js';
import { AuditTrail } from './audit-trail.service.js';
import { AuditKeyring, useAuditKeyring } from './audit-keys.js';
import { TypeOrmAuditRepository } from './typeorm-audit.repository.js';
import { testAuditTrail } from '../../test/fakes/no-op-ports.js';

/**
 * What each statement of the held connection was, as far as the chain is concerned; undefined
 * for a savepoint released (see SqliteGroupCommit).
 */
function labelOf(sql: string): string | undefined {
  if (sql === 'RELEASE unit') return undefined;
  if (sql === 'SAVEPOINT unit') return 'unit';
  if (sql === 'ROLLBACK TO unit') return 'rolled back';
  if (sql.startsWith('SELECT seq, hash, at, key_id')) return 'read head';
  // The append that checks the head it links to is still the head (STILL_THE_HEAD).
  if (sql.startsWith('INSERT INTO audit_event') && sql.includes('FROM audit_event')) {
    return 'append after';
  }
  if (sql.startsWith('INSERT INTO audit_event')) return 'append';
  return sql;
}

describe('the audit chain appended by the units of SQLite group transactions', () => {
  let dir: string;
  let dataSource: DataSource;
  let sqlite: SqliteConnection;
  let transactions: TypeOrmTransactions;
  let trail: AuditTrail;
  /** The statements run on the held connection, labelled (see labelOf). */
  let statements: string[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-chain-'));
    sqlite = new SqliteConnection();
    dataSource = new DataSource(dataSourceOptions(`sqlite:${join(dir, 'db.sqlite')}`, 1, sqlite));
    const keyring = useAuditKeyring(dataSource, new AuditKeyring(randomBytes(32)));
    await dataSource.initialize();
    await dataSource.runMigrations();
    const state = new ServiceState();
    transactions = new TypeOrmTransactions(
      dataSource,
      new DatabaseFileMonitor(dataSource, state),
      new WriteHealth(state),
      sqlite,
    );
    const reads = new PreparedReads(dataSource, { databasePoolSize: 1 } as AppConfig);
    trail = testAuditTrail(new TypeOrmAuditRepository(dataSource, reads), transactions, keyring);
    statements = [];
    const run = sqlite.run.bind(sqlite);
    sqlite.run = (sql, parameters) => {
      const label = labelOf(sql);
      if (label) statements.push(label);
      return run(sql, parameters);
    };
    // The group's own statements sent together (SqliteGroupCommit), each labelled in its order.
    const exec = sqlite.exec.bind(sqlite);
    sqlite.exec = (batch) => {
      for (const sql of batch) {
        const label = labelOf(sql);
        if (label) statements.push(label);
      }
      return exec(batch);
    };
  });
  afterEach(async () => {
    await transactions.beforeApplicationShutdown();
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const append = (tx: Tx, name: string) =>
    trail.recordSystem(tx, name, { target: name, changes: { step: { old: null, new: name } } });
  /** A unit that appends an event of each name, then fails when `fails`. */
  const unit =
    (names: string[], fails = false) =>
    async (tx: Tx) => {
      for (const name of names) await append(tx, name);
      if (fails) throw new Error(`${names.join('+')} refused`);
    };
  const actions = async () =>
    (
      (await dataSource.query('SELECT seq, action FROM audit_event ORDER BY seq')) as {
        seq: number;
        action: string;
      }[]
    ).map((row) => `${row.seq} ${row.action}`);

  /**
   * The units as one group: a first unit, alone in its group, holds the connection while they
   * arrive, so they wait and then run together. The statements of that group, labelled.
   */
  async function groupOf(units: ((tx: Tx) => Promise<void>)[]) {
    const first = transactions.run(unit(['first']));
    const outcomes = await Promise.allSettled(units.map((u) => transactions.run(u)));
    await first;
    const begins = statements.flatMap((s, i) => (s === 'BEGIN IMMEDIATE' ? [i] : []));
    return { outcomes: outcomes.map((o) => o.status), sent: statements.slice(begins[1]) };
  }

  it('reads the head once per group, again after a unit rolled back, and the chain verifies', async () => {
    const { outcomes, sent } = await groupOf([
      unit(['a']),
      unit(['b'], true), // appended after a, then rolled back: its event is gone
      unit(['c']),
      async () => {
        throw new Error('refused before appending');
      },
      unit(['e']),
      unit(['f1', 'f2']),
      unit(['g1', 'g2'], true),
      unit(['h']),
    ]);
    expect(outcomes).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(sent).toEqual([
      'BEGIN IMMEDIATE',
      'unit',
      'read head',
      'append', // a
      'unit',
      'append after', // b, after a
      'rolled back',
      'unit',
      'read head', // b's append undone: the head is read again
      'append', // c
      'unit',
      'rolled back',
      'unit',
      'read head', // a unit rolled back: forgotten, whatever it did
      'append', // e
      'unit',
      'append after', // f1
      'append after', // f2
      'unit',
      'append after', // g1
      'append after', // g2
      'rolled back',
      'unit',
      'read head',
      'append', // h
      'COMMIT',
    ]);
    expect(await actions()).toEqual(['1 first', '2 a', '3 c', '4 e', '5 f1', '6 f2', '7 h']);
    const verified = await trail.verify();
    expect(verified).toMatchObject({ valid: true, events: 7 });
    // The next group reads the head afresh: what a group learned ends with it.
    statements = [];
    await transactions.run(unit(['next']));
    expect(statements).toEqual(['BEGIN IMMEDIATE', 'unit', 'read head', 'append', 'COMMIT']);
    expect(await trail.verify()).toMatchObject({ valid: true, events: 8 });
  });

  it('forgets the head when the group’s COMMIT fails, and the next group links to the head on disk', async () => {
    await dataSource.query('PRAGMA foreign_keys = ON');
    await dataSource.query('CREATE TABLE parent (name TEXT PRIMARY KEY)');
    await dataSource.query(
      'CREATE TABLE child (parent TEXT REFERENCES parent (name) DEFERRABLE INITIALLY DEFERRED)',
    );
    const { outcomes } = await groupOf([
      unit(['x']),
      unit(['y']),
      // A child without its parent: SQLite refuses the COMMIT, not the statement.
      async (tx) => void (await managerOf(tx).query("INSERT INTO child (parent) VALUES ('none')")),
    ]);
    expect(outcomes).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await actions()).toEqual(['1 first']);
    statements = [];
    await transactions.run(unit(['z']));
    expect(statements).toEqual(['BEGIN IMMEDIATE', 'unit', 'read head', 'append', 'COMMIT']);
    expect(await actions()).toEqual(['1 first', '2 z']);
    expect(await trail.verify()).toMatchObject({ valid: true, events: 2 });
  });

  it('never links to a remembered head that is no longer the head: it reads the head again', async () => {
    const warnings: unknown[][] = [];
    Logger.overrideLogger({
      log: () => undefined,
      error: () => undefined,
      warn: (...args: unknown[]) => warnings.push(args),
    });
    const { outcomes, sent } = await groupOf([
      async (tx) => {
        await append(tx, 'kept');
        await append(tx, 'removed');
        // Undone behind the memo's back (nothing in the service does this).
        await managerOf(tx).query("DELETE FROM audit_event WHERE action = 'removed'");
        await append(tx, 'after');
      },
    ]);
    expect(outcomes).toEqual(['fulfilled']);
    expect(sent).toEqual([
      'BEGIN IMMEDIATE',
      'unit',
      'read head',
      'append', // kept
      'append after', // removed
      'append after', // after: refused, the head is not `removed` any more
      'read head',
      'append',
      'COMMIT',
    ]);
    Logger.overrideLogger(false);
    expect(await actions()).toEqual(['1 first', '2 kept', '3 after']);
    expect(await trail.verify()).toMatchObject({ valid: true, events: 3 });
    // Said in the log, with the head it remembered (the event `removed`, seq 3).
    expect(warnings).toEqual([
      [
        { remembered: 3 },
        'The head of the audit chain was not the one this transaction remembered; read it again',
        'Audit',
      ],
    ]);
  });

  it('reads the head when prepared, then appends many events linked in order without reading it', async () => {
    const call = (requestId: string) => ({
      operator: { kind: 'operator' as const, id: 'op-1', name: 'Ann' },
      action: 'report',
      requestId,
      status: 200,
    });
    const change = (target: string) => ({ target, changes: { s: { old: null, new: target } } });
    const { outcomes, sent } = await groupOf([
      async (tx) => {
        await trail.prepare(tx);
        await trail.prepare(tx); // known now: no second read
        await trail.recordMany(tx, [
          { call: call('r1'), change: change('one') },
          { call: undefined, change: change('no operator: no event') },
          { call: call('r2'), change: change('two') },
        ]);
        await trail.recordMany(tx, [{ call: call('r3'), change: change('three') }]);
      },
    ]);
    expect(outcomes).toEqual(['fulfilled']);
    expect(sent).toEqual([
      'BEGIN IMMEDIATE',
      'unit',
      'read head',
      'append after',
      'append after',
      'COMMIT',
    ]);
    const targets = (await dataSource.query(
      'SELECT seq, target FROM audit_event ORDER BY seq',
    )) as {
      seq: number;
      target: string;
    }[];
    expect(targets.map((row) => `${row.seq} ${row.target}`)).toEqual([
      '1 first',
      '2 one',
      '3 two',
      '4 three',
    ]);
    expect(await trail.verify()).toMatchObject({ valid: true, events: 4 });
  });

  it('reads the head before every append of a transaction that keeps no memo (PostgreSQL’s)', async () => {
    const runner = dataSource.createQueryRunner();
    const tx = new TypeOrmTx(runner.manager, sqlite);
    await runner.query('BEGIN IMMEDIATE');
    await append(tx, 'one');
    await append(tx, 'two');
    await runner.query('COMMIT');
    await runner.release();
    expect(statements).toEqual(['read head', 'append', 'read head', 'append']);
    expect(await trail.verify()).toMatchObject({ valid: true, events: 2 });
  });

  it('reads the head again after a unit whose own append failed', async () => {
    await dataSource.query(
      "CREATE TRIGGER refuse BEFORE INSERT ON audit_event WHEN NEW.action = 'bad' " +
        "BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END",
    );
    const { outcomes, sent } = await groupOf([unit(['a']), unit(['bad']), unit(['b'])]);
    expect(outcomes).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(sent).toEqual([
      'BEGIN IMMEDIATE',
      'unit',
      'read head',
      'append',
      'unit',
      'append after', // refused by the trigger
      'rolled back',
      'unit',
      'read head',
      'append',
      'COMMIT',
    ]);
    expect(await actions()).toEqual(['1 first', '2 a', '3 b']);
    expect(await trail.verify()).toMatchObject({ valid: true, events: 3 });
  });
});
