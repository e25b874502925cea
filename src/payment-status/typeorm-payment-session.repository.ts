import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { claimLockClause } from '../database/dialect.js';
import {
  type BatchColumn,
  insertBatch,
  selectByKeys,
  updateBatch,
} from '../database/batch-statements.js';
import { BatchedReads } from '../database/batched-reads.js';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { insertRows, insertUnlessDuplicate, managerOf } from '../database/typeorm-transactions.js';
import { PaymentSession, PaymentSessionTransition } from './payment-session.entity.js';
import { actorOf, storedActor, type Actor } from './actor.js';
import {
  CallbackUrls,
  ListedSession,
  NewTransition,
  PaymentSessionRepository,
  SessionListQuery,
  SessionRecord,
  SessionUpdate,
  TransitionRecord,
} from './payment-session.repository.js';
import type { StoredReport } from './payment-status.shapes.js';
import { isFinal } from './payment-status.types.js';

const SELECT_SESSIONS =
  'SELECT validation_key AS "validationKey", merchant_id AS "merchantId", status, ' +
  'detailed_status AS "detailedStatus", error_message AS "errorMessage", ' +
  'payment_response AS "paymentResponse", return_url AS "returnUrl", error_url AS "errorUrl", ' +
  'version FROM payment_session';
/** Keys read by one statement of the status lookup at most. */
const LOOKUP_BATCH_KEYS = 256;

/** What a stored report is made of, as written in batches. */
const REPORT_COLUMNS: BatchColumn[] = [
  { name: 'status', type: 'text' },
  { name: 'detailed_status', type: 'text' },
  { name: 'error_message', type: 'text' },
  { name: 'payment_response', type: 'text' },
  { name: 'return_url', type: 'text' },
  { name: 'error_url', type: 'text' },
];
const SESSION_COLUMNS: BatchColumn[] = [
  { name: 'validation_key', type: 'text' },
  { name: 'merchant_id', type: 'text' },
  ...REPORT_COLUMNS,
  { name: 'version', type: 'integer' },
  { name: 'final_at', type: 'bigint' },
  { name: 'created_by', type: 'text' },
  { name: 'created_at_ms', type: 'bigint' },
];
const UPDATE_COLUMNS: BatchColumn[] = [
  { name: 'validation_key', type: 'text' },
  { name: 'expected_version', type: 'integer' },
  ...REPORT_COLUMNS,
  { name: 'final_at', type: 'bigint' },
];
const TRANSITION_COLUMNS: BatchColumn[] = [
  { name: 'validation_key', type: 'text' },
  { name: 'version', type: 'integer' },
  { name: 'from_status', type: 'text' },
  { name: 'to_status', type: 'text' },
  { name: 'detailed_status', type: 'text' },
  { name: 'actor', type: 'text' },
];

@Injectable()
export class TypeOrmPaymentSessionRepository extends PaymentSessionRepository {
  private lookups?: BatchedReads<SessionRecord>;

  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    super();
  }

  /** The lookups that arrive together are read with one statement (see BatchedReads). */
  find(validationKey: string): Promise<SessionRecord | undefined> {
    this.lookups ??= new BatchedReads(
      async (keys) => {
        const rows = await this.reads.byKeys<SessionRecord>(
          SELECT_SESSIONS,
          'validation_key',
          keys,
        );
        return new Map(rows.map((row) => [row.validationKey, row]));
      },
      { maxBatch: LOOKUP_BATCH_KEYS, concurrency: this.reads.concurrency },
    );
    return this.lookups.get(validationKey);
  }

  async findIn(tx: Tx, validationKey: string): Promise<SessionRecord | undefined> {
    const row = await managerOf(tx).findOneBy(PaymentSession, { validationKey });
    return row ? toRecord(row) : undefined;
  }

  async insert(tx: Tx, session: SessionRecord, createdBy?: Actor): Promise<boolean> {
    const now = Date.now();
    const row = {
      ...session,
      finalAt: finalAtOf(session.status, now),
      createdBy: storedActor(createdBy),
      createdAtMs: now,
    };
    return (await insertUnlessDuplicate(tx, PaymentSession, row)) !== undefined;
  }

  async updateIfVersion(
    tx: Tx,
    validationKey: string,
    expectedVersion: number,
    next: StoredReport & CallbackUrls,
  ): Promise<boolean> {
    const result = await managerOf(tx)
      .createQueryBuilder()
      .update(PaymentSession)
      .set({
        ...next,
        version: expectedVersion + 1,
        ...(isFinal(next.status) ? { finalAt: Date.now() } : {}),
      })
      .where('validation_key = :validationKey AND version = :expectedVersion', {
        validationKey,
        expectedVersion,
      })
      .execute();
    return result.affected === 1;
  }

  async addTransition(
    tx: Tx,
    validationKey: string,
    transition: Omit<TransitionRecord, 'at'>,
  ): Promise<void> {
    await insertRows(tx, PaymentSessionTransition, {
      validationKey,
      ...transition,
      actor: storedActor(transition.actor ?? undefined),
    });
  }

  async findManyIn(tx: Tx, validationKeys: string[]): Promise<Map<string, SessionRecord>> {
    const rows = await selectByKeys<SessionRecord>(
      tx,
      SELECT_SESSIONS,
      ['validation_key'],
      validationKeys.map((key) => [key]),
    );
    return new Map(
      rows.map((row) => [row.validationKey, { ...row, version: Number(row.version) }]),
    );
  }

  async insertMany(tx: Tx, sessions: SessionRecord[], createdBy?: Actor): Promise<void> {
    const now = Date.now();
    const by = storedActor(createdBy);
    await insertBatch(
      tx,
      'payment_session',
      SESSION_COLUMNS,
      sessions.map((s) => [
        s.validationKey,
        s.merchantId,
        ...reportValues(s),
        s.version,
        finalAtOf(s.status, now),
        by,
        now,
      ]),
    );
  }

  async updateManyIfVersion(tx: Tx, updates: SessionUpdate[]): Promise<number> {
    // The same columns as updateIfVersion, and updated_at as TypeORM sets it on every update.
    const now = Date.now();
    const set = [
      ...REPORT_COLUMNS.map((c) => `${c.name} = v.${c.name}`),
      'version = v.expected_version + 1',
      'final_at = COALESCE(v.final_at, payment_session.final_at)',
      'updated_at = CURRENT_TIMESTAMP',
    ].join(', ');
    return updateBatch(
      tx,
      'payment_session',
      UPDATE_COLUMNS,
      updates.map((u) => [
        u.validationKey,
        u.expectedVersion,
        ...reportValues(u.next),
        finalAtOf(u.next.status, now),
      ]),
      set,
      'payment_session.validation_key = v.validation_key AND payment_session.version = v.expected_version',
    );
  }

  async addTransitions(tx: Tx, transitions: NewTransition[]): Promise<void> {
    await insertBatch(
      tx,
      'payment_session_transition',
      TRANSITION_COLUMNS,
      transitions.map((t) => [
        t.validationKey,
        t.version,
        t.fromStatus,
        t.toStatus,
        t.detailedStatus,
        storedActor(t.actor ?? undefined),
      ]),
    );
  }

  async history(validationKey: string): Promise<TransitionRecord[]> {
    const rows = await this.dataSource.getRepository(PaymentSessionTransition).find({
      where: { validationKey },
      order: { version: 'ASC' },
    });
    return rows.map((row) => ({
      version: row.version,
      fromStatus: row.fromStatus,
      toStatus: row.toStatus,
      detailedStatus: row.detailedStatus,
      actor: actorOf(row.actor),
      at: new Date(row.at),
    }));
  }

  async list(query: SessionListQuery): Promise<ListedSession[]> {
    const select = this.dataSource
      .getRepository(PaymentSession)
      .createQueryBuilder('s')
      .orderBy('s.created_at_ms', 'DESC')
      .addOrderBy('s.validation_key', 'DESC')
      .limit(query.limit);
    if (query.merchantId !== undefined) {
      select.andWhere('s.merchant_id = :merchantId', { merchantId: query.merchantId });
    }
    if (query.status !== undefined) select.andWhere('s.status = :status', { status: query.status });
    if (query.createdFrom !== undefined) {
      select.andWhere('s.created_at_ms >= :from', { from: query.createdFrom });
    }
    if (query.createdTo !== undefined) {
      select.andWhere('s.created_at_ms < :to', { to: query.createdTo });
    }
    if (query.after) {
      select.andWhere(
        '(s.created_at_ms < :afterMs OR (s.created_at_ms = :afterMs AND s.validation_key < :afterKey))',
        { afterMs: query.after.createdAtMs, afterKey: query.after.validationKey },
      );
    }
    return (await select.getMany()).map(toListed);
  }

  async findListed(validationKey: string): Promise<ListedSession | undefined> {
    const row = await this.dataSource.getRepository(PaymentSession).findOneBy({ validationKey });
    return row ? toListed(row) : undefined;
  }

  async dueForErasure(
    tx: Tx,
    finalBefore: number,
    limit: number,
  ): Promise<Pick<SessionRecord, 'validationKey' | 'paymentResponse'>[]> {
    const manager = managerOf(tx);
    const due = manager
      .createQueryBuilder(PaymentSession, 's')
      .select('s.validation_key', 'validationKey')
      .addSelect('s.payment_response', 'paymentResponse')
      .where('s.final_at <= :finalBefore', { finalBefore })
      .andWhere('s.personal_data_erased_at IS NULL')
      .orderBy('s.final_at', 'ASC')
      .limit(limit);
    const [sql, parameters] = due.getQueryAndParameters();
    return (await manager.query(sql + claimLockClause(this.dataSource), parameters)) as Pick<
      SessionRecord,
      'validationKey' | 'paymentResponse'
    >[];
  }

  async storeErasure(
    tx: Tx,
    validationKey: string,
    paymentResponse: string | null,
    erasedAt: number,
  ): Promise<void> {
    await managerOf(tx).update(
      PaymentSession,
      { validationKey },
      { paymentResponse, personalDataErasedAt: erasedAt },
    );
  }
}

/** When a session written now with `status` became final (epoch ms); null while it is not. */
function finalAtOf(status: SessionRecord['status'], now: number): number | null {
  return isFinal(status) ? now : null;
}

function reportValues(report: StoredReport & CallbackUrls): unknown[] {
  return [
    report.status,
    report.detailedStatus,
    report.errorMessage,
    report.paymentResponse,
    report.returnUrl,
    report.errorUrl,
  ];
}

function toListed(row: PaymentSession): ListedSession {
  return {
    ...toRecord(row),
    createdAtMs: row.createdAtMs,
    createdBy: actorOf(row.createdBy),
  };
}

function toRecord(row: PaymentSession): SessionRecord {
  return {
    validationKey: row.validationKey,
    merchantId: row.merchantId,
    status: row.status,
    detailedStatus: row.detailedStatus,
    errorMessage: row.errorMessage,
    paymentResponse: row.paymentResponse,
    returnUrl: row.returnUrl,
    errorUrl: row.errorUrl,
    version: row.version,
  };
}
