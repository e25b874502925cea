import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { claimLockClause, kindOf, timestampOf } from '../database/dialect.js';
import {
  type BatchColumn,
  insertBatch,
  selectByKeys,
  updateBatch,
} from '../database/batch-statements.js';
import { BatchedReads } from '../database/batched-reads.js';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { execute } from '../database/sql.js';
import { managerOf } from '../database/typeorm-transactions.js';
import { PaymentSession } from './payment-session.entity.js';
import { actorOf, storedActor } from './actor.js';
import {
  CallbackUrls,
  ListedSession,
  NewSession,
  NewTransition,
  PaymentSessionRepository,
  SeededTimes,
  SessionListQuery,
  SessionRecord,
  SessionUpdate,
  TransitionRecord,
} from './payment-session.repository.js';
import type { StoredReport } from './payment-status.shapes.js';
import { isFinal } from './payment-status.types.js';
import { holdsPersonalData } from './personal-data.js';

/** A SessionRecord's columns, as read. */
const SESSION_FIELDS =
  'validation_key AS "validationKey", merchant_id AS "merchantId", status, ' +
  'detailed_status AS "detailedStatus", error_message AS "errorMessage", ' +
  'payment_response AS "paymentResponse", return_url AS "returnUrl", error_url AS "errorUrl", ' +
  'version, personal_data_erased_at AS "personalDataErasedAt"';
const SELECT_SESSIONS = `SELECT ${SESSION_FIELDS} FROM payment_session`;
/** A session with who created it and when, as the operator lists it. */
const SELECT_LISTED =
  `SELECT ${SESSION_FIELDS}, created_at_ms AS "createdAtMs", created_by AS "createdBy" ` +
  'FROM payment_session';
const HISTORY_SQL =
  'SELECT version, from_status AS "fromStatus", to_status AS "toStatus", ' +
  'detailed_status AS "detailedStatus", actor, at FROM payment_session_transition ' +
  'WHERE validation_key = ? ORDER BY version';
/** Keys read by one statement of the status lookup at most. */
const LOOKUP_BATCH_KEYS = 256;

/**
 * Rows in the order of their keys: two transactions writing some of the same sessions lock them in
 * the same order (PostgreSQL), so neither waits for the other in a circle.
 */
function inKeyOrder<T>(rows: readonly T[], keyOf: (row: T) => string): T[] {
  return [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

/** A new session's values, in the order of SESSION_COLUMNS. */
function newSessionValues({ session, createdBy }: NewSession, now: number): unknown[] {
  return [
    session.validationKey,
    session.merchantId,
    ...reportValues(session),
    session.version,
    finalAtOf(session.status, now),
    holdsPersonalData(session.paymentResponse),
    storedActor(createdBy),
    now,
  ];
}

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
  { name: 'holds_personal_data', type: 'boolean' },
  { name: 'created_by', type: 'text' },
  { name: 'created_at_ms', type: 'bigint' },
];
const UPDATE_COLUMNS: BatchColumn[] = [
  { name: 'validation_key', type: 'text' },
  { name: 'expected_version', type: 'integer' },
  ...REPORT_COLUMNS,
  { name: 'final_at', type: 'bigint' },
  { name: 'holds_personal_data', type: 'boolean' },
];
const SEEDED_TIME_COLUMNS: BatchColumn[] = [
  { name: 'validation_key', type: 'text' },
  { name: 'created_at', type: 'text' },
  { name: 'created_at_ms', type: 'bigint' },
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
  /** The status lookups' reads, gathered into one statement (see lookUp). */
  private readonly lookups: BatchedReads<SessionRecord>;

  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    super();
    this.lookups = new BatchedReads(this.readSessions, {
      maxBatch: LOOKUP_BATCH_KEYS,
      concurrency: reads.concurrency,
    });
  }

  /**
   * The session of the key. Lookups that arrive together are read with one statement: the key
   * waits in `lookups` (BatchedReads) with the keys of the lookups that arrive in the same turn
   * of the event loop, and they go to readSessions together. On SQLite one statement per key cost
   * about three times the CPU of a status lookup on distinct keys (bench/README.md, "Batched
   * reads pay for distinct keys").
   */
  lookUp(validationKey: string): Promise<SessionRecord | undefined> {
    return this.lookups.read(validationKey);
  }

  /**
   * The sessions of these keys, by key, in one statement on the read connection: on SQLite
   * `SELECT … FROM payment_session WHERE validation_key IN (SELECT value FROM json_each(?))` with
   * the keys as one JSON array, on PostgreSQL `SELECT … FROM payment_session WHERE validation_key
   * = ANY($1::text[])` with the keys as an array (PreparedReads.byKeys).
   */
  private readonly readSessions = async (
    validationKeys: readonly string[],
  ): Promise<Map<string, SessionRecord>> => {
    const rows = await this.reads.byKeys<SessionRecord>(
      SELECT_SESSIONS,
      'validation_key',
      validationKeys,
    );
    return new Map(rows.map((row) => [row.validationKey, fromRow(row)]));
  };

  async findIn(tx: Tx, validationKey: string): Promise<SessionRecord | undefined> {
    const { rows } = await execute<SessionRecord>(
      tx,
      `${SELECT_SESSIONS} WHERE validation_key = ?`,
      [validationKey],
    );
    return rows[0] && fromRow(rows[0]);
  }

  async findManyIn(tx: Tx, validationKeys: string[]): Promise<Map<string, SessionRecord>> {
    const rows = await selectByKeys<SessionRecord>(
      tx,
      SELECT_SESSIONS,
      ['validation_key'],
      validationKeys.map((key) => [key]),
    );
    return new Map(rows.map((row) => [row.validationKey, fromRow(row)]));
  }

  async insertMany(tx: Tx, sessions: readonly NewSession[]): Promise<number> {
    const now = Date.now();
    return insertBatch(
      tx,
      'payment_session',
      SESSION_COLUMNS,
      inKeyOrder(sessions, ({ session }) => session.validationKey).map((row) =>
        newSessionValues(row, now),
      ),
      { unique: 'validation_key' },
    );
  }

  async updateManyIfVersion(tx: Tx, updates: SessionUpdate[]): Promise<number> {
    // final_at set once; updated_at as TypeORM sets it on every update.
    const now = Date.now();
    const set = [
      ...REPORT_COLUMNS.map((c) => `${c.name} = v.${c.name}`),
      'version = v.expected_version + 1',
      'final_at = COALESCE(v.final_at, payment_session.final_at)',
      'holds_personal_data = v.holds_personal_data',
      'updated_at = CURRENT_TIMESTAMP',
    ].join(', ');
    return updateBatch(
      tx,
      'payment_session',
      UPDATE_COLUMNS,
      inKeyOrder(updates, (u) => u.validationKey).map((u) => [
        u.validationKey,
        u.expectedVersion,
        ...reportValues(u.next),
        finalAtOf(u.next.status, now),
        holdsPersonalData(u.next.paymentResponse),
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
    const rows = await this.reads.all<
      Omit<TransitionRecord, 'actor'> & { at: Date | string; actor: string | null }
    >(HISTORY_SQL, [validationKey]);
    return rows.map((row) => ({
      ...row,
      version: Number(row.version),
      actor: actorOf(row.actor),
      at: timestampOf(row.at),
    }));
  }

  async list(query: SessionListQuery): Promise<ListedSession[]> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    const where = (condition: string, ...given: unknown[]) => {
      conditions.push(condition);
      values.push(...given);
    };
    if (query.merchantId !== undefined) where('merchant_id = ?', query.merchantId);
    if (query.status !== undefined) where('status = ?', query.status);
    if (query.createdFrom !== undefined) where('created_at_ms >= ?', query.createdFrom);
    if (query.createdTo !== undefined) where('created_at_ms < ?', query.createdTo);
    if (query.after) {
      const { createdAtMs, validationKey } = query.after;
      where(
        '(created_at_ms < ? OR (created_at_ms = ? AND validation_key < ?))',
        createdAtMs,
        createdAtMs,
        validationKey,
      );
    }
    const rows = await this.reads.all<Parameters<typeof toListed>[0]>(
      `${SELECT_LISTED}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''} ` +
        'ORDER BY created_at_ms DESC, validation_key DESC LIMIT ?',
      [...values, query.limit],
    );
    return rows.map(toListed);
  }

  async findListed(validationKey: string): Promise<ListedSession | undefined> {
    const [row] = await this.reads.all<Parameters<typeof toListed>[0]>(
      `${SELECT_LISTED} WHERE validation_key = ?`,
      [validationKey],
    );
    return row && toListed(row);
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
      // The condition of the partial index ix_payment_session_personal_final, word for word.
      .where('s.holds_personal_data = TRUE')
      .andWhere('s.final_at <= :finalBefore', { finalBefore })
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
    erasedAt: number | null,
  ): Promise<void> {
    await managerOf(tx).update(
      PaymentSession,
      { validationKey },
      {
        paymentResponse,
        holdsPersonalData: false,
        ...(erasedAt === null ? {} : { personalDataErasedAt: erasedAt }),
      },
    );
  }

  async setSeededTimes(tx: Tx, times: SeededTimes[]): Promise<void> {
    // A creation time is written as each database keeps its own (SQLite: UTC text).
    const postgres = kindOf(this.dataSource) === 'postgres';
    const createdAt = postgres ? 'CAST(v.created_at AS timestamptz)' : 'v.created_at';
    await updateBatch(
      tx,
      'payment_session',
      SEEDED_TIME_COLUMNS,
      times.map((t) => [
        t.validationKey,
        t.createdAt === null || postgres ? t.createdAt : sqliteTime(t.createdAt),
        t.createdAt === null ? null : Date.parse(t.createdAt),
        t.finalAt,
      ]),
      `created_at = COALESCE(${createdAt}, payment_session.created_at), ` +
        // The operator's listing orders and filters by the creation in epoch milliseconds.
        'created_at_ms = COALESCE(v.created_at_ms, payment_session.created_at_ms), ' +
        'final_at = COALESCE(v.final_at, payment_session.final_at)',
      'payment_session.validation_key = v.validation_key',
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

/** `YYYY-MM-DD HH:MM:SS.sss` in UTC: how SQLite's datetime columns hold a time. */
function sqliteTime(iso: string): string {
  return new Date(iso).toISOString().replace('T', ' ').replace('Z', '');
}

/** A session as the operator lists it, read with SELECT_LISTED. */
function toListed(row: SessionRecord & { createdAtMs: unknown; createdBy: string | null }) {
  return {
    ...fromRow(row),
    createdAtMs: row.createdAtMs == null ? null : Number(row.createdAtMs),
    createdBy: actorOf(row.createdBy),
  };
}

/** A session read with SELECT_SESSIONS (PostgreSQL hands integers and bigints over as text). */
function fromRow(row: SessionRecord): SessionRecord {
  return {
    ...row,
    version: Number(row.version),
    personalDataErasedAt:
      row.personalDataErasedAt == null ? null : Number(row.personalDataErasedAt),
  };
}
