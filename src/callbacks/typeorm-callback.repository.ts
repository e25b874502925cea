import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { type BatchColumn, insertBatch } from '../database/batch-statements.js';
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

/** A callback's columns, as written (src/database/batch-statements.ts). */
const CALLBACK_COLUMNS: BatchColumn[] = [
  { name: 'id', type: 'text' },
  { name: 'webhook_id', type: 'text' },
  { name: 'validation_key', type: 'text' },
  { name: 'merchant_id', type: 'text' },
  { name: 'status', type: 'text' },
  { name: 'url', type: 'text' },
  { name: 'body', type: 'text' },
  { name: 'state', type: 'text' },
  { name: 'attempts', type: 'integer' },
  { name: 'first_attempt_at', type: 'bigint' },
  { name: 'next_attempt_at', type: 'bigint' },
  { name: 'lease_owner', type: 'text' },
  { name: 'lease_until', type: 'bigint' },
  { name: 'state_after_redelivery', type: 'text' },
];

@Injectable()
export class TypeOrmCallbackRepository extends CallbackRepository {
  private readonly lock: string;

  constructor(@InjectDataSource() dataSource: DataSource) {
    super();
    this.lock = claimLockClause(dataSource);
  }

  async insert(tx: Tx, callbacks: readonly CallbackRecord[]): Promise<void> {
    await insertBatch(
      tx,
      'callback',
      CALLBACK_COLUMNS,
      callbacks.map((c) => [
        c.id,
        c.webhookId,
        c.validationKey,
        c.merchantId,
        c.status,
        c.url,
        c.body,
        c.state,
        c.attempts,
        c.firstAttemptAt,
        c.nextAttemptAt,
        c.leaseOwner,
        c.leaseUntil,
        c.stateAfterRedelivery,
      ]),
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
      .addSelect('c.merchant_id', 'merchantId')
      .where("c.state = 'pending' AND c.next_attempt_at <= :now", { now })
      .andWhere('(c.lease_until IS NULL OR c.lease_until < :now)', { now })
      .orderBy('c.next_attempt_at', 'ASC')
      .limit(plan.limit);
    if (plan.exclude.length > 0) {
      due.andWhere('c.merchant_id NOT IN (:...exclude)', { exclude: plan.exclude });
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
    tx: Tx,
    validationKey: string,
  ): Promise<(CallbackRecord & { attemptList: AttemptRecord[] })[]> {
    const manager = managerOf(tx);
    const callbacks = await manager.find(Callback, {
      where: { validationKey },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    if (callbacks.length === 0) return [];
    const attempts = await manager.find(CallbackAttempt, {
      where: { callbackId: In(callbacks.map((c) => c.id)) },
      order: { id: 'ASC' },
    });
    return callbacks.map((callback) => ({
      ...toRecord(callback),
      attemptList: attempts
        .filter((a) => a.callbackId === callback.id)
        .map((a) => ({
          at: a.at,
          httpStatus: a.httpStatus,
          error: a.error,
          durationMs: a.durationMs,
        })),
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

  async nextDueAt(tx: Tx): Promise<number | undefined> {
    const row = (await managerOf(tx)
      .createQueryBuilder(Callback, 'c')
      .select('MIN(c.next_attempt_at)', 'next')
      .where("c.state = 'pending'")
      .getRawOne()) as { next: string | number | null } | undefined;
    return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
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
