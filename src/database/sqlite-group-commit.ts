import { ApiError } from '../common/errors/api-error.js';
import { isDatabaseUnavailable } from './dialect.js';
import type { TransactionMemo } from './transaction-memo.js';
import type { RunOptions, Tx } from './transactions.js';

/** Units of work committed together at most. */
export const MAX_GROUP_UNITS = 64;

/** A unit of work waiting for its group, and where its outcome goes. */
interface Unit<T = unknown> {
  work: (tx: Tx) => Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** What ends a unit that succeeded, and one that failed (undone to its savepoint). */
const RELEASED = ['RELEASE unit'] as const;
const ROLLED_BACK = ['ROLLBACK TO unit', 'RELEASE unit'] as const;

/** What a unit came to inside its group, handed over only once the group's fate is known. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The group's own statements on the connection, and the transaction handle units are given. */
export interface GroupConnection {
  /** Runs one of the group's statements: BEGIN, SAVEPOINT, RELEASE, ROLLBACK (TO), COMMIT. */
  control(sql: string): Promise<unknown>;
  /**
   * Runs several of them in one round trip, in order, stopping at the first that fails (whose
   * error it rejects with). Without it they are run one after another with `control`.
   */
  controls?(statements: readonly string[]): Promise<unknown>;
  tx: Tx;
  /** What the units learned in the transaction (the memo `tx` gives them), forgotten here. */
  memo?: TransactionMemo;
}

/**
 * Where a group is when it checks the database: before BEGIN, before COMMIT, after COMMIT; or
 * before a statement run between groups (`outside`: a checkpoint).
 */
export type GroupStage = 'begin' | 'commit' | 'committed' | 'outside';

/** What a group checks around COMMIT, and whom it tells how it went. */
export interface GroupHooks {
  /**
   * Before BEGIN, before COMMIT and after it, and before a statement between groups (`stage`):
   * throws when the change must not be made or acknowledged.
   */
  assertWritable(stage: GroupStage): void;
  /** A group of `units` committed: the database takes writes. */
  committed(units: number): void;
  /** The database did not take a group's writes (full, read only, I/O error, gone). */
  refused(error: unknown): void;
}

/**
 * Transactions on SQLite's one connection (TypeORM's SQLite driver shares a single connection
 * between all callers), grouped: the units that arrive while a transaction is under way wait, and
 * then run one after another inside one transaction, each within a savepoint of its own, with one
 * COMMIT for all of them. So a burst of concurrent writes costs one COMMIT (one fsync of the log)
 * instead of one each. Each unit still gets exactly its own outcome: a unit that throws is rolled
 * back to its savepoint and its error is its answer; the others keep their writes.
 *
 * The statements that end a unit (RELEASE, after a failure ROLLBACK TO and RELEASE) are sent with
 * the ones that come next (the next unit's SAVEPOINT, or COMMIT), in one round trip where the
 * connection can (`controls`): every statement is a hand-off to the driver's thread pool and back,
 * and the group's own were two of the eight of a report (docs/decisions.md, "What bounds writes on
 * SQLite"). They run in order and stop at the first that fails, so nothing of what follows a
 * RELEASE or ROLLBACK TO that failed runs.
 *
 * A unit's savepoint is released as soon as the unit ends. Left open until the group's COMMIT
 * (which commits every open savepoint: one statement fewer per unit), the units' savepoints nest,
 * and SQLite's sub-journal (the original content of each page a unit changes, kept for its
 * ROLLBACK TO; a temporary file once past 64 KiB) grows through the whole group instead of being
 * written again from its start for each unit: measured slower than the RELEASE it saves
 * (docs/decisions.md, "What bounds writes on SQLite").
 *
 * What units learned in the transaction and keep for the units after them (the connection's
 * TransactionMemo) is forgotten whenever a unit is rolled back to its savepoint, and when the
 * group ends, committed or not.
 *
 * Every outcome, value or error, is handed over only after COMMIT: a unit's decision may rest on
 * the writes of the units before it in the group, and if COMMIT fails none of them happened. Then
 * every unit of the group fails with SERVICE_UNAVAILABLE.
 *
 * The statements BEGIN, SAVEPOINT, RELEASE, ROLLBACK (TO) and COMMIT are sent by this class, and
 * the query runner's own transaction methods are never used: after a failed COMMIT SQLite may or
 * may not have rolled back by itself, and TypeORM 0.3.31's runner keeps believing its
 * transaction is open when the ROLLBACK that follows fails (docs/decisions.md,
 * "SQLite transactions after a failed COMMIT"). Here each group begins with BEGIN IMMEDIATE, which
 * SQLite refuses inside an open transaction: a transaction left open is rolled back before the next
 * group begins, never nested into.
 *
 * Errors that may have ended SQLite's transaction by themselves (a full disk, an I/O error, a
 * busy or read-only database) end the whole group: the units after them would otherwise run
 * outside any transaction.
 */
export class SqliteGroupCommit {
  private readonly waitingAhead: Unit[] = [];
  private readonly waitingInTurn: Unit[] = [];
  /** Statements to run between two groups, outside any transaction. */
  private readonly between: Unit[] = [];
  private busy = false;

  constructor(
    private readonly connection: () => GroupConnection,
    private readonly hooks: GroupHooks,
    private readonly maxUnits = MAX_GROUP_UNITS,
  ) {}

  run<T>(work: (tx: Tx) => Promise<T>, options: RunOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unit: Unit<T> = { work, resolve, reject };
      (options.ahead ? this.waitingAhead : this.waitingInTurn).push(unit as Unit);
      if (!this.busy) void this.drain();
    });
  }

  /**
   * Runs a statement on the connection while no transaction is open (a checkpoint of the log),
   * before the next group.
   */
  outside(sql: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const unit: Unit<void> = {
        work: async () => {
          await this.connection().control(sql);
        },
        resolve,
        reject,
      };
      this.between.push(unit as Unit);
      if (!this.busy) void this.drain();
    });
  }

  /** Runs groups, and statements between them, while any wait; one at a time. */
  private async drain(): Promise<void> {
    this.busy = true;
    try {
      for (;;) {
        // Also those that arrive while one runs: nothing else would run them.
        for (let statement; (statement = this.between.shift());) {
          // Inside the chain: a connection that cannot be had is this statement's answer.
          await Promise.resolve()
            .then(() => {
              this.hooks.assertWritable('outside');
              return statement.work(this.connection().tx);
            })
            .then(statement.resolve, statement.reject);
        }
        const group = this.nextGroup();
        if (group.length === 0) return;
        // Every unit is answered whatever fails, even a connection that throws instead of
        // rejecting: an unanswered unit is a request that never ends.
        await this.runGroup(group).catch((error: unknown) => this.fail(group, error));
      }
    } finally {
      this.busy = false;
    }
  }

  /** The units of the next group: those run `ahead` first, each lane in order. */
  private nextGroup(): Unit[] {
    const group = this.waitingAhead.splice(0, this.maxUnits);
    group.push(...this.waitingInTurn.splice(0, this.maxUnits - group.length));
    return group;
  }

  private async runGroup(group: Unit[]): Promise<void> {
    const connection = this.connection();
    const outcomes: Outcome[] = [];
    // Before BEGIN too: a database whose files refuse writes is not touched (see GroupHooks).
    this.hooks.assertWritable('begin');
    connection.memo?.forget();
    try {
      await this.begin(connection);
      // What ends a unit (its RELEASE, or its ROLLBACK TO and RELEASE) is sent with what comes
      // next (the next unit's SAVEPOINT, or COMMIT): one round trip between two units.
      let ending: readonly string[] = [];
      for (const unit of group) {
        if (ending.length > 0) await this.send(connection, [...ending, 'SAVEPOINT unit']);
        const outcome = await this.runUnit(connection, unit);
        outcomes.push(outcome);
        ending = outcome.ok ? RELEASED : ROLLED_BACK;
      }
      this.hooks.assertWritable('commit'); // before COMMIT: a gone file rolls the group back
      await this.send(connection, [...ending, 'COMMIT']);
    } catch (error) {
      await connection.control('ROLLBACK').catch(() => undefined); // none open: nothing to undo
      this.fail(group, error);
      return;
    } finally {
      connection.memo?.forget();
    }
    try {
      // After COMMIT: a write into a gone file is never acknowledged.
      this.hooks.assertWritable('committed');
    } catch (error) {
      this.fail(group, error);
      return;
    }
    this.hooks.committed(group.length);
    group.forEach((unit, index) => {
      const outcome = outcomes[index];
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  /**
   * BEGIN IMMEDIATE and the first unit's SAVEPOINT; a transaction some failure left open is rolled
   * back first.
   */
  private async begin(connection: GroupConnection): Promise<void> {
    try {
      await this.send(connection, ['BEGIN IMMEDIATE', 'SAVEPOINT unit']);
    } catch (error) {
      if (!/within a transaction/i.test(String(error))) throw error;
      await connection.control('ROLLBACK');
      await this.send(connection, ['BEGIN IMMEDIATE', 'SAVEPOINT unit']);
    }
  }

  /** The group's statements in order, in one round trip where the connection can. */
  private async send(connection: GroupConnection, statements: readonly string[]): Promise<void> {
    if (connection.controls) {
      await connection.controls(statements);
      return;
    }
    for (const sql of statements) await connection.control(sql);
  }

  /**
   * One unit, in the savepoint already set for it. Its own error is its outcome (it is rolled
   * back to its savepoint with the statements that come after it); an error that may have ended
   * the transaction ends the group.
   */
  private async runUnit(connection: GroupConnection, unit: Unit): Promise<Outcome> {
    try {
      return { ok: true, value: await unit.work(connection.tx) };
    } catch (error) {
      connection.memo?.forget();
      if (isDatabaseUnavailable(error)) throw error;
      return { ok: false, error };
    }
  }

  /** None of the group's writes happened: every unit is told, the cause is noted once. */
  private fail(group: Unit[], cause: unknown): void {
    this.hooks.refused(cause);
    const answer =
      cause instanceof ApiError
        ? cause
        : new ApiError('SERVICE_UNAVAILABLE', {
            message: 'The database did not take this change; nothing was written. Retry later.',
          });
    for (const unit of group) unit.reject(answer);
  }
}
