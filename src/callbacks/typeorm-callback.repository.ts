import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { type BatchColumn, insertBatch } from '../database/batch-statements.js';
import { EntityColumns } from '../database/entity-columns.js';
import { PreparedReads } from '../database/prepared-reads.js';
import { claimLockClause } from '../database/dialect.js';
import type { Tx } from '../database/transactions.js';
import { insertRows, managerOf } from '../database/typeorm-transactions.js';
import {
  CALLBACK_STATES,
  Callback,
  CallbackAttempt,
  type CallbackState,
} from './callback.entity.js';
import {
  AttemptRecord,
  AttemptResult,
  CallbackRecord,
  CallbackRepository,
} from './callback.repository.js';
import type { ClaimPlan, DueCallback } from './delivery-lanes.js';

/** A CallbackRecord's properties, in the order of its batch's columns. */
const RECORD = [
  'id',
  'webhookId',
  'validationKey',
  'merchantId',
  'status',
  'url',
  'body',
  'state',
  'attempts',
  'firstAttemptAt',
  'nextAttemptAt',
  'leaseOwner',
  'leaseUntil',
  'stateAfterRedelivery',
] as const satisfies readonly (keyof Callback & keyof CallbackRecord)[];
/** An AttemptRecord's properties. */
const ATTEMPT = [
  'at',
  'httpStatus',
  'error',
  'durationMs',
] as const satisfies readonly (keyof CallbackAttempt & keyof AttemptRecord)[];

@Injectable()
export class TypeOrmCallbackRepository extends CallbackRepository {
  private readonly lock: string;
  private readonly table: string;
  private readonly columns: BatchColumn[];

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly reads: PreparedReads,
  ) {
    super();
    this.lock = claimLockClause(dataSource);
    const callbacks = new EntityColumns(dataSource, Callback);
    this.table = callbacks.table;
    this.columns = callbacks.batch(RECORD);
  }

  async insert(tx: Tx, callbacks: readonly CallbackRecord[]): Promise<void> {
    await insertBatch(
      tx,
      this.table,
      this.columns,
      callbacks.map((callback) => RECORD.map((property) => callback[property])),
    );
  }

  async claimDue(
    tx: Tx,
    owner: string,
    now: number,
    leaseUntil: number,
    plan: Pick<ClaimPlan, 'limit' | 'exclude' | 'pick'>,
  ): Promise<CallbackRecord[]> {
    const manager = managerOf(tx);
    const due = manager
      .createQueryBuilder(Callback, 'c')
      .select('c.id', 'id')
      .addSelect('c.merchantId', 'merchantId')
      .where("c.state = 'pending' AND c.nextAttemptAt <= :now", { now })
      .andWhere('(c.leaseUntil IS NULL OR c.leaseUntil < :now)', { now })
      .orderBy('c.nextAttemptAt', 'ASC')
      .limit(plan.limit);
    if (plan.exclude.length > 0) {
      due.andWhere('c.merchantId NOT IN (:...exclude)', { exclude: plan.exclude });
    }
    const [sql, parameters] = due.getQueryAndParameters();
    const ids = plan.pick((await manager.query(sql + this.lock, parameters)) as DueCallback[]);
    if (ids.length === 0) return [];
    await manager.update(Callback, { id: In(ids) }, { leaseOwner: owner, leaseUntil });
    return (await manager.findBy(Callback, { id: In(ids) })).map(toRecord);
  }

  async finishAttempt(
    tx: Tx,
    id: string,
    owner: string,
    attempt: AttemptRecord,
    result: AttemptResult,
  ): Promise<boolean> {
    const manager = managerOf(tx);
    const updated = await manager.update(
      Callback,
      { id, leaseOwner: owner },
      { ...result, leaseOwner: null, leaseUntil: null },
    );
    if (!updated.affected) return false;
    await insertRows(tx, CallbackAttempt, { callbackId: id, ...attempt });
    return true;
  }

  async releaseLeases(tx: Tx, owner: string): Promise<void> {
    await managerOf(tx).update(
      Callback,
      { leaseOwner: owner },
      { leaseOwner: null, leaseUntil: null },
    );
  }

  async find(tx: Tx, id: string): Promise<CallbackRecord | undefined> {
    const row = await managerOf(tx).findOneBy(Callback, { id });
    return row ? toRecord(row) : undefined;
  }

  async setDue(
    tx: Tx,
    id: string,
    changes: Pick<CallbackRecord, 'state' | 'nextAttemptAt' | 'stateAfterRedelivery'>,
  ): Promise<void> {
    await managerOf(tx).update(Callback, { id }, changes);
  }

  async listForSession(
    validationKey: string,
  ): Promise<(CallbackRecord & { attemptList: AttemptRecord[] })[]> {
    const callbacks = this.reads.of(Callback, 'c', RECORD);
    callbacks.query
      .where('c.validationKey = :validationKey', { validationKey })
      .orderBy('c.createdAt')
      .addOrderBy('c.id');
    const listed = await callbacks.rows();
    if (listed.length === 0) return [];
    const attempts = this.reads.of(CallbackAttempt, 'a', ['callbackId', ...ATTEMPT]);
    attempts.query
      .innerJoin(Callback, 'c', 'c.id = a.callbackId')
      .where('c.validationKey = :validationKey', { validationKey })
      .orderBy('a.id');
    const made = await attempts.rows();
    return listed.map((callback) => ({
      ...callback,
      attemptList: made
        .filter((attempt) => attempt.callbackId === callback.id)
        .map(({ callbackId: _callbackId, ...attempt }) => attempt),
    }));
  }

  async attemptsOf(tx: Tx, id: string): Promise<AttemptRecord[]> {
    const attempts = await managerOf(tx).find(CallbackAttempt, {
      where: { callbackId: id },
      order: { id: 'ASC' },
    });
    return attempts.map(({ at, httpStatus, error, durationMs }) => ({
      at,
      httpStatus,
      error,
      durationMs,
    }));
  }

  async countByState(tx: Tx): Promise<Record<CallbackState, number>> {
    const rows = (await managerOf(tx)
      .createQueryBuilder(Callback, 'c')
      .select('c.state', 'state')
      .addSelect('COUNT(*)', 'count')
      .groupBy('c.state')
      .getRawMany()) as { state: CallbackState; count: string | number }[];
    const counts = Object.fromEntries(CALLBACK_STATES.map((s) => [s, 0])) as Record<
      CallbackState,
      number
    >;
    for (const row of rows) counts[row.state] = Number(row.count);
    return counts;
  }

  async bodiesOf(tx: Tx, validationKey: string): Promise<{ id: string; body: string }[]> {
    return managerOf(tx).find(Callback, {
      where: { validationKey },
      select: { id: true, body: true },
    });
  }

  async setBody(tx: Tx, id: string, body: string): Promise<void> {
    await managerOf(tx).update(Callback, { id }, { body });
  }
}

function toRecord(row: Callback): CallbackRecord {
  return {
    id: row.id,
    webhookId: row.webhookId,
    validationKey: row.validationKey,
    merchantId: row.merchantId,
    status: row.status,
    url: row.url,
    body: row.body,
    state: row.state,
    attempts: row.attempts,
    firstAttemptAt: row.firstAttemptAt,
    nextAttemptAt: row.nextAttemptAt,
    leaseOwner: row.leaseOwner,
    leaseUntil: row.leaseUntil,
    stateAfterRedelivery: row.stateAfterRedelivery,
  };
}
