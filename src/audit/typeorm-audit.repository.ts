import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Between,
  DataSource,
  Equal,
  FindOptionsWhere,
  LessThanOrEqual,
  MoreThan,
  MoreThanOrEqual,
  Raw,
} from 'typeorm';
import { BATCH_ROWS, type BatchColumn, insertBatch } from '../database/batch-statements.js';
import { kindOf } from '../database/dialect.js';
import { execute } from '../database/sql.js';
import type { Tx } from '../database/transactions.js';
import { MemoKey, type TransactionMemo } from '../database/transaction-memo.js';
import { managerOf, memoOf } from '../database/typeorm-transactions.js';
import { type AuditEvent, type StoredAuditEvent, storedChanges } from './audit-chain.js';
import { AuditEventRow } from './audit-event.entity.js';
import { AuditFilter, AuditRepository, ChainHead } from './audit.repository.js';
import { AUDIT_CHAIN_LOCK } from './migration-events.js';
import { asciiLowerCase } from '../common/validators.js';

/** The head of the chain: on the write path of every audited change, a plain statement. */
const LAST_EVENT =
  'SELECT seq, hash, at, key_id AS "keyId" FROM audit_event ORDER BY seq DESC LIMIT 1';
/** An event's columns, as written (src/database/batch-statements.ts). */
const EVENT_COLUMNS: BatchColumn[] = [
  { name: 'seq', type: 'integer' },
  { name: 'at', type: 'text' },
  { name: 'actor_kind', type: 'text' },
  { name: 'operator_id', type: 'text' },
  { name: 'operator_name', type: 'text' },
  { name: 'action', type: 'text' },
  { name: 'target', type: 'text' },
  { name: 'outcome', type: 'integer' },
  { name: 'request_id', type: 'text' },
  { name: 'changes', type: 'text' },
  { name: 'reason', type: 'text' },
  { name: 'key_id', type: 'text' },
  { name: 'prev_hash', type: 'text' },
  { name: 'hash', type: 'text' },
];
/**
 * Events appended after the head the transaction remembers, only if that is the head still: the
 * check and the insert are one statement, so a head remembered wrongly is caught, never linked to.
 */
const STILL_THE_HEAD = '(SELECT seq, hash FROM audit_event ORDER BY seq DESC LIMIT 1) = (?, ?)';

/**
 * The head of the chain as this transaction's last append left it (SQLite's grouped
 * transactions: see TransactionMemo).
 */
const CHAIN_HEAD = new MemoKey<ChainHead>('audit chain head');

@Injectable()
export class TypeOrmAuditRepository extends AuditRepository {
  private readonly logger = new Logger('Audit');

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
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
        const inserted = await insertBatch(
          tx,
          'audit_event',
          EVENT_COLUMNS,
          events.map(eventValues),
          { onlyIf: { sql: STILL_THE_HEAD, parameters: [known.seq, known.hash] } },
        );
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
      LAST_EVENT,
    );
    const row = rows[0];
    return row ? { seq: Number(row.seq), hash: row.hash, at: row.at, keyId: row.keyId } : undefined;
  }

  async insert(tx: Tx, events: readonly AuditEvent[]): Promise<void> {
    await insertBatch(tx, 'audit_event', EVENT_COLUMNS, events.map(eventValues));
  }

  async list(
    tx: Tx,
    filter: AuditFilter,
    { page, size }: { page: number; size: number },
  ): Promise<{ rows: StoredAuditEvent[]; total: number }> {
    const where: FindOptionsWhere<AuditEventRow> = {};
    if (filter.action !== undefined) where.action = Equal(filter.action);
    if (filter.target !== undefined) where.target = Equal(filter.target);
    if (filter.from !== undefined && filter.to !== undefined) {
      where.at = Between(filter.from, filter.to);
    } else if (filter.from !== undefined) {
      where.at = MoreThanOrEqual(filter.from);
    } else if (filter.to !== undefined) {
      where.at = LessThanOrEqual(filter.to);
    }
    const wheres =
      filter.operator === undefined
        ? [where]
        : [
            { ...where, operatorId: Equal(filter.operator) },
            // Names are unique regardless of case, and ASCII: LOWER folds them alike everywhere.
            {
              ...where,
              operatorName: Raw((column) => `LOWER(${column}) = :operatorName`, {
                operatorName: asciiLowerCase(filter.operator),
              }),
            },
          ];
    const [rows, total] = await managerOf(tx).findAndCount(AuditEventRow, {
      where: wheres,
      order: { seq: 'DESC' },
      skip: page * size,
      take: size,
    });
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

/** An event's values, in EVENT_COLUMNS' order. */
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
