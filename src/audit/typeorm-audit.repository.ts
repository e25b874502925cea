import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, MoreThan } from 'typeorm';
import { BATCH_ROWS, type BatchColumn, insertBatch } from '../database/batch-statements.js';
import { kindOf } from '../database/dialect.js';
import { EntityColumns } from '../database/entity-columns.js';
import { type Page, type PageRequest, PreparedReads } from '../database/prepared-reads.js';
import { execute } from '../database/sql.js';
import type { Tx } from '../database/transactions.js';
import { MemoKey, type TransactionMemo } from '../database/transaction-memo.js';
import { managerOf, memoOf } from '../database/typeorm-transactions.js';
import { type AuditEvent, type StoredAuditEvent, storedChanges } from './audit-chain.js';
import { AuditEventRow } from './audit-event.entity.js';
import { AuditFilter, AuditRepository, ChainHead } from './audit.repository.js';
import { AUDIT_CHAIN_LOCK } from './migration-events.js';
import { asciiLowerCase } from '../common/validators.js';

/** An event's properties, in the order of its batch's columns (eventValues). */
const EVENT = [
  'seq',
  'at',
  'actorKind',
  'operatorId',
  'operatorName',
  'action',
  'target',
  'outcome',
  'requestId',
  'changes',
  'reason',
  'keyId',
  'prevHash',
  'hash',
] as const satisfies readonly (keyof AuditEventRow)[];

/**
 * The head of the chain as this transaction's last append left it (SQLite's grouped
 * transactions: see TransactionMemo).
 */
const CHAIN_HEAD = new MemoKey<ChainHead>('audit chain head');

@Injectable()
export class TypeOrmAuditRepository extends AuditRepository {
  private readonly logger = new Logger('Audit');
  private readonly table: string;
  private readonly columns: BatchColumn[];
  /** The head of the chain: on the write path of every audited change, a plain statement. */
  private readonly lastEvent: string;
  /**
   * Events appended after the head the transaction remembers, only if that is the head still: the
   * check and the insert are one statement, so a head remembered wrongly is caught, never linked
   * to.
   */
  private readonly stillTheHead: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: PreparedReads,
  ) {
    super();
    const events = new EntityColumns(dataSource, AuditEventRow);
    this.table = events.table;
    this.columns = events.batch(EVENT);
    const newestFirst = `FROM ${events.table} ORDER BY ${events.name('seq')} DESC LIMIT 1`;
    this.lastEvent = `SELECT ${events.selectList(['seq', 'hash', 'at', 'keyId'])} ${newestFirst}`;
    this.stillTheHead = `(SELECT ${events.selectList(['seq', 'hash'])} ${newestFirst}) = (?, ?)`;
  }

  /**
   * SQLite: within a group transaction (see SqliteGroupCommit), the head an earlier append of the
   * same transaction left is known: the group holds the write lock from BEGIN IMMEDIATE on, and
   * the memo is forgotten when a unit is rolled back or the group ends. The append after it links
   * to that head without reading it, in one statement that checks the head is still that one
   * (otherwise the head is read and the events made again). PostgreSQL: each batch is a
   * transaction of its own, under the chain's lock, and its head is always read.
   */
  override async append(
    tx: Tx,
    next: (head: ChainHead | undefined) => AuditEvent[],
  ): Promise<AuditEvent[]> {
    const memo = memoOf(tx);
    const known = memo?.get(CHAIN_HEAD);
    if (memo && known) {
      const events = next(known);
      // One statement checks the head for all of them: at most a statement's worth of rows.
      if (events.length <= BATCH_ROWS) {
        const inserted = await insertBatch(tx, this.table, this.columns, events.map(eventValues), {
          onlyIf: { sql: this.stillTheHead, parameters: [known.seq, known.hash] },
        });
        if (inserted === events.length) {
          rememberHead(memo, events);
          return events;
        }
        memo.delete(CHAIN_HEAD);
        this.logger.warn(
          { remembered: known.seq },
          'The head of the audit chain was not the one this transaction remembered; read it again',
        );
      }
    }
    const appended = await super.append(tx, next);
    if (memo) rememberHead(memo, appended);
    return appended;
  }

  /** SQLite's group transactions: the head, read now unless the transaction knows it. */
  override async prepare(tx: Tx): Promise<void> {
    const memo = memoOf(tx);
    if (!memo || memo.get(CHAIN_HEAD)) return;
    const head = await this.last(tx);
    if (head) rememberHead(memo, [head]);
  }

  async lockChain(tx: Tx): Promise<void> {
    if (kindOf(this.dataSource) !== 'postgres') return;
    await managerOf(tx).query('SELECT pg_advisory_xact_lock($1)', [AUDIT_CHAIN_LOCK]);
  }

  async last(tx: Tx): Promise<Pick<AuditEvent, 'seq' | 'hash' | 'at' | 'keyId'> | undefined> {
    const { rows } = await execute<Pick<AuditEvent, 'seq' | 'hash' | 'at' | 'keyId'>>(
      tx,
      this.lastEvent,
    );
    const row = rows[0];
    return row ? { seq: Number(row.seq), hash: row.hash, at: row.at, keyId: row.keyId } : undefined;
  }

  async insert(tx: Tx, events: readonly AuditEvent[]): Promise<void> {
    await insertBatch(tx, this.table, this.columns, events.map(eventValues));
  }

  async list(filter: AuditFilter, page: PageRequest): Promise<Page<StoredAuditEvent>> {
    const read = this.reads.of(AuditEventRow, 'e');
    const where = read.query;
    if (filter.action !== undefined)
      where.andWhere('e.action = :action', { action: filter.action });
    if (filter.target !== undefined)
      where.andWhere('e.target = :target', { target: filter.target });
    if (filter.from !== undefined) where.andWhere('e.at >= :from', { from: filter.from });
    if (filter.to !== undefined) where.andWhere('e.at <= :to', { to: filter.to });
    if (filter.operator !== undefined) {
      // Names are unique regardless of case, and ASCII: LOWER folds them alike everywhere.
      where.andWhere('(e.operatorId = :operator OR LOWER(e.operatorName) = :operatorName)', {
        operator: filter.operator,
        operatorName: asciiLowerCase(filter.operator),
      });
    }
    where.orderBy('e.seq', 'DESC');
    const { rows, total } = await read.page(page);
    return { rows: rows.map(toEvent), total };
  }

  async after(tx: Tx, seq: number, limit: number): Promise<StoredAuditEvent[]> {
    const rows = await managerOf(tx).find(AuditEventRow, {
      where: { seq: MoreThan(seq) },
      order: { seq: 'ASC' },
      take: limit,
    });
    return rows.map(toEvent);
  }

  async census(tx: Tx, through: number): Promise<{ rows: number; lowest: number | null }> {
    const found = (await managerOf(tx)
      .createQueryBuilder(AuditEventRow, 'e')
      .select('COUNT(*)', 'rows')
      .addSelect('MIN(e.seq)', 'lowest')
      .where('e.seq <= :through', { through })
      .getRawOne()) as { rows: number | string; lowest: number | string | null } | undefined;
    return {
      rows: Number(found?.rows ?? 0),
      lowest: found?.lowest === null || found?.lowest === undefined ? null : Number(found.lowest),
    };
  }
}

/** Keeps the last of the events just appended (or read) as the head the transaction knows. */
function rememberHead(memo: TransactionMemo, events: readonly ChainHead[]): void {
  const last = events[events.length - 1];
  if (last) memo.set(CHAIN_HEAD, { seq: last.seq, hash: last.hash });
}

/** An event's values, in EVENT's order. */
function eventValues(event: AuditEvent): unknown[] {
  return [
    event.seq,
    event.at,
    event.actorKind,
    event.operatorId,
    event.operatorName,
    event.action,
    event.target,
    event.outcome,
    event.requestId,
    JSON.stringify(event.changes),
    event.reason ?? null,
    event.keyId ?? null,
    event.prevHash,
    event.hash,
  ];
}

function toEvent(row: AuditEventRow): StoredAuditEvent {
  return { ...row, changes: storedChanges(row.changes) };
}
