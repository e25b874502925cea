import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { claimLockClause, kindOf } from '../database/dialect.js';
import {
  type BatchColumn,
  insertBatch,
  selectByKeys,
  updateBatch,
} from '../database/batch-statements.js';
import { BatchedReads } from '../database/batched-reads.js';
import { EntityColumns } from '../database/entity-columns.js';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { execute } from '../database/sql.js';
import { managerOf } from '../database/typeorm-transactions.js';
import { PaymentSession, PaymentSessionTransition } from './payment-session.entity.js';
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

/** What a stored report is made of, as written. */
const REPORT = [
  'status',
  'detailedStatus',
  'errorMessage',
  'paymentResponse',
  'returnUrl',
  'errorUrl',
] as const satisfies readonly (keyof PaymentSession & keyof SessionRecord)[];
/** A SessionRecord's properties, as read. */
const SESSION = [
  'validationKey',
  'merchantId',
  ...REPORT,
  'version',
  'personalDataErasedAt',
] as const satisfies readonly (keyof PaymentSession & keyof SessionRecord)[];
/** A session as the operator lists it: with who created it and when. */
const LISTED = [...SESSION, 'createdAtMs', 'createdBy'] as const;
/** A new session's values, in the order of its batch's columns (newSessionValues). */
const NEW_SESSION = [
  'validationKey',
  'merchantId',
  ...REPORT,
  'version',
  'finalAt',
  'holdsPersonalData',
  'createdBy',
  'createdAtMs',
] as const satisfies readonly (keyof PaymentSession)[];
/** A transition's values, in the order of its batch's columns. */
const TRANSITION = [
  'validationKey',
  'version',
  'fromStatus',
  'toStatus',
  'detailedStatus',
  'actor',
] as const satisfies readonly (keyof PaymentSessionTransition)[];
/** Keys read by one statement of the status lookup at most. */
const LOOKUP_BATCH_KEYS = 256;

/**
 * Rows in the order of their keys: two transactions writing some of the same sessions lock them in
 * the same order (PostgreSQL), so neither waits for the other in a circle.
 */
function inKeyOrder<T>(rows: readonly T[], keyOf: (row: T) => string): T[] {
  return [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

/** A new session's values, in the order of NEW_SESSION. */
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

/** The statements of the write path and of the status lookup, their columns from the entities. */
interface SessionStatements {
  /** `SELECT <a SessionRecord> FROM payment_session`, without WHERE. */
  selectSessions: string;
  findSession: string;
  keyColumn: string;
  table: string;
  newSession: BatchColumn[];
  update: { columns: BatchColumn[]; set: string; where: string };
  seededTimes: { columns: BatchColumn[]; set: string; where: string };
  transitions: { table: string; columns: BatchColumn[] };
}

function statementsOf(dataSource: DataSource): SessionStatements {
  const sessions = new EntityColumns(dataSource, PaymentSession);
  const transitions = new EntityColumns(dataSource, PaymentSessionTransition);
  const table = sessions.table;
  const column = (property: keyof PaymentSession & string) => sessions.name(property);
  const key = column('validationKey');
  const selectSessions = sessions.select(SESSION);
  const finalAt = column('finalAt');
  const createdAt = column('createdAt');
  const createdAtMs = column('createdAtMs');
  // A creation time is written as each database keeps its own (SQLite: UTC text).
  const givenCreatedAt =
    kindOf(dataSource) === 'postgres' ? `CAST(v.${createdAt} AS timestamptz)` : `v.${createdAt}`;
  return {
    selectSessions,
    findSession: `${selectSessions} WHERE ${key} = ?`,
    keyColumn: key,
    table,
    newSession: sessions.batch(NEW_SESSION),
    update: {
      columns: [
        ...sessions.batch(['validationKey']),
        { name: 'expected_version', type: 'integer' },
        ...sessions.batch([...REPORT, 'finalAt', 'holdsPersonalData']),
      ],
      // final_at set once; updated_at as TypeORM sets it on every update.
      set: [
        ...REPORT.map((property) => `${column(property)} = v.${column(property)}`),
        `${column('version')} = v.expected_version + 1`,
        `${finalAt} = COALESCE(v.${finalAt}, ${table}.${finalAt})`,
        `${column('holdsPersonalData')} = v.${column('holdsPersonalData')}`,
        `${column('updatedAt')} = CURRENT_TIMESTAMP`,
      ].join(', '),
      where: `${table}.${key} = v.${key} AND ${table}.${column('version')} = v.expected_version`,
    },
    seededTimes: {
      columns: [
        ...sessions.batch(['validationKey']),
        { name: createdAt, type: 'text' },
        ...sessions.batch(['createdAtMs', 'finalAt']),
      ],
      set:
        `${createdAt} = COALESCE(${givenCreatedAt}, ${table}.${createdAt}), ` +
        // The operator's listing orders and filters by the creation in epoch milliseconds.
        `${createdAtMs} = COALESCE(v.${createdAtMs}, ${table}.${createdAtMs}), ` +
        `${finalAt} = COALESCE(v.${finalAt}, ${table}.${finalAt})`,
      where: `${table}.${key} = v.${key}`,
    },
    transitions: { table: transitions.table, columns: transitions.batch(TRANSITION) },
  };
}

@Injectable()
export class TypeOrmPaymentSessionRepository extends PaymentSessionRepository {
  /** The status lookups' reads, gathered into one statement (see lookUp). */
  private readonly lookups: BatchedReads<SessionRecord>;
  private readonly sql: SessionStatements;

  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    super();
    this.sql = statementsOf(dataSource);
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
      this.sql.selectSessions,
      this.sql.keyColumn,
      validationKeys,
    );
    return new Map(rows.map((row) => [row.validationKey, fromRow(row)]));
  };

  async findIn(tx: Tx, validationKey: string): Promise<SessionRecord | undefined> {
    const { rows } = await execute<SessionRecord>(tx, this.sql.findSession, [validationKey]);
    return rows[0] && fromRow(rows[0]);
  }

  async findManyIn(tx: Tx, validationKeys: string[]): Promise<Map<string, SessionRecord>> {
    const rows = await selectByKeys<SessionRecord>(
      tx,
      this.sql.selectSessions,
      [this.sql.keyColumn],
      validationKeys.map((key) => [key]),
    );
    return new Map(rows.map((row) => [row.validationKey, fromRow(row)]));
  }

  async insertMany(tx: Tx, sessions: readonly NewSession[]): Promise<number> {
    const now = Date.now();
    return insertBatch(
      tx,
      this.sql.table,
      this.sql.newSession,
      inKeyOrder(sessions, ({ session }) => session.validationKey).map((row) =>
        newSessionValues(row, now),
      ),
      { unique: this.sql.keyColumn },
    );
  }

  async updateManyIfVersion(tx: Tx, updates: SessionUpdate[]): Promise<number> {
    const now = Date.now();
    const { columns, set, where } = this.sql.update;
    return updateBatch(
      tx,
      this.sql.table,
      columns,
      inKeyOrder(updates, (u) => u.validationKey).map((u) => [
        u.validationKey,
        u.expectedVersion,
        ...reportValues(u.next),
        finalAtOf(u.next.status, now),
        holdsPersonalData(u.next.paymentResponse),
      ]),
      set,
      where,
    );
  }

  async addTransitions(tx: Tx, transitions: NewTransition[]): Promise<void> {
    await insertBatch(
      tx,
      this.sql.transitions.table,
      this.sql.transitions.columns,
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
    const read = this.reads.of(PaymentSessionTransition, 't', [
      'version',
      'fromStatus',
      'toStatus',
      'detailedStatus',
      'actor',
      'at',
    ]);
    read.query.where('t.validationKey = :validationKey', { validationKey }).orderBy('t.version');
    return (await read.rows()).map((row) => ({ ...row, actor: actorOf(row.actor) }));
  }

  async list(query: SessionListQuery): Promise<ListedSession[]> {
    const read = this.listed();
    const where = read.query;
    if (query.merchantId !== undefined) {
      where.andWhere('s.merchantId = :merchantId', { merchantId: query.merchantId });
    }
    if (query.status !== undefined) where.andWhere('s.status = :status', { status: query.status });
    if (query.createdFrom !== undefined) {
      where.andWhere('s.createdAtMs >= :createdFrom', { createdFrom: query.createdFrom });
    }
    if (query.createdTo !== undefined) {
      where.andWhere('s.createdAtMs < :createdTo', { createdTo: query.createdTo });
    }
    if (query.after) {
      where.andWhere(
        '(s.createdAtMs < :afterMs OR (s.createdAtMs = :afterMs AND s.validationKey < :afterKey))',
        { afterMs: query.after.createdAtMs, afterKey: query.after.validationKey },
      );
    }
    where.orderBy('s.createdAtMs', 'DESC').addOrderBy('s.validationKey', 'DESC');
    return (await read.rows(query.limit)).map(toListed);
  }

  async findListed(validationKey: string): Promise<ListedSession | undefined> {
    const read = this.listed();
    read.query.where('s.validationKey = :validationKey', { validationKey });
    const [row] = await read.rows();
    return row && toListed(row);
  }

  /** A read of sessions as the operator lists them. */
  private listed() {
    return this.reads.of(PaymentSession, 's', LISTED);
  }

  async dueForErasure(
    tx: Tx,
    finalBefore: number,
    limit: number,
  ): Promise<Pick<SessionRecord, 'validationKey' | 'paymentResponse'>[]> {
    const manager = managerOf(tx);
    const due = manager
      .createQueryBuilder(PaymentSession, 's')
      .select('s.validationKey', 'validationKey')
      .addSelect('s.paymentResponse', 'paymentResponse')
      // The condition of the partial index ix_payment_session_personal_final, word for word.
      .where('s.holdsPersonalData = TRUE')
      .andWhere('s.finalAt <= :finalBefore', { finalBefore })
      .orderBy('s.finalAt', 'ASC')
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
    const postgres = kindOf(this.dataSource) === 'postgres';
    const { columns, set, where } = this.sql.seededTimes;
    await updateBatch(
      tx,
      this.sql.table,
      columns,
      times.map((t) => [
        t.validationKey,
        t.createdAt === null || postgres ? t.createdAt : sqliteTime(t.createdAt),
        t.createdAt === null ? null : Date.parse(t.createdAt),
        t.finalAt,
      ]),
      set,
      where,
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

/** A session as the operator lists it: its creator's actor read from its stored form. */
function toListed(row: Pick<PaymentSession, (typeof LISTED)[number]>): ListedSession {
  return { ...row, createdBy: actorOf(row.createdBy) };
}

/**
 * A session read with the hand-written statements (PostgreSQL hands integers and bigints over as
 * text).
 */
function fromRow(row: SessionRecord): SessionRecord {
  return {
    ...row,
    version: Number(row.version),
    personalDataErasedAt:
      row.personalDataErasedAt == null ? null : Number(row.personalDataErasedAt),
  };
}
