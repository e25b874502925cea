import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  Between,
  DataSource,
  Equal,
  FindOptionsWhere,
  LessThanOrEqual,
  MoreThan,
  MoreThanOrEqual,
} from 'typeorm';
import { kindOf } from '../database/dialect.js';
import { execute } from '../database/sql.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import type { AuditEvent } from './audit-chain.js';
import { AuditEventRow } from './audit-event.entity.js';
import { AuditFilter, AuditRepository } from './audit.repository.js';
import { AUDIT_CHAIN_LOCK } from './migration-events.js';

/**
 * The head of the chain and a new event: on the write path of every audited change, so written as
 * plain statements, prepared once (src/database/sql.ts).
 */
const LAST_EVENT = 'SELECT seq, hash, at FROM audit_event ORDER BY seq DESC LIMIT 1';
const INSERT_EVENT =
  'INSERT INTO audit_event (seq, at, actor_kind, operator_id, operator_name, action, target, ' +
  'outcome, request_id, changes, reason, key_id, prev_hash, hash) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

@Injectable()
export class TypeOrmAuditRepository extends AuditRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async lockChain(tx: Tx): Promise<void> {
    if (kindOf(this.dataSource) !== 'postgres') return;
    await managerOf(tx).query('SELECT pg_advisory_xact_lock($1)', [AUDIT_CHAIN_LOCK]);
  }

  async last(tx: Tx): Promise<Pick<AuditEvent, 'seq' | 'hash' | 'at'> | undefined> {
    const { rows } = await execute<Pick<AuditEvent, 'seq' | 'hash' | 'at'>>(tx, LAST_EVENT);
    const row = rows[0];
    return row ? { seq: Number(row.seq), hash: row.hash, at: row.at } : undefined;
  }

  async insert(tx: Tx, event: AuditEvent): Promise<void> {
    await execute(tx, INSERT_EVENT, [
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
    ]);
  }

  async list(
    tx: Tx,
    filter: AuditFilter,
    { page, size }: { page: number; size: number },
  ): Promise<{ rows: AuditEvent[]; total: number }> {
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
            { ...where, operatorName: Equal(filter.operator) },
          ];
    const [rows, total] = await managerOf(tx).findAndCount(AuditEventRow, {
      where: wheres,
      order: { seq: 'DESC' },
      skip: page * size,
      take: size,
    });
    return { rows: rows.map(toEvent), total };
  }

  async after(tx: Tx, seq: number, limit: number): Promise<AuditEvent[]> {
    const rows = await managerOf(tx).find(AuditEventRow, {
      where: { seq: MoreThan(seq) },
      order: { seq: 'ASC' },
      take: limit,
    });
    return rows.map(toEvent);
  }
}

function toEvent(row: AuditEventRow): AuditEvent {
  return { ...row, changes: JSON.parse(row.changes) as AuditEvent['changes'] };
}
