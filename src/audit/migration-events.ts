import type { QueryRunner } from 'typeorm';
import { kindOf } from '../database/dialect.js';
import { forDatabase } from '../database/sql.js';
import { AuditContent, GENESIS_HASH, linkOf } from './audit-chain.js';
import { auditKeyringOf } from './audit-keys.js';
import type { Changes } from './changes.js';

/** Any number: every instance takes this lock to append to the one chain. */
export const AUDIT_CHAIN_LOCK = 7_340_513_292;

/** A change a migration makes to stored data, as the audit trail records it (by `system`). */
export interface MigrationChange {
  action: string;
  target: string | null;
  changes: Changes;
}

/**
 * Appends an event of `system` to the audit chain from inside a migration, keyed like every new
 * event, under the lock every instance takes to append. Written with the migration's own
 * statements: a migration runs before the application's repositories exist.
 */
export async function appendMigrationEvent(
  queryRunner: QueryRunner,
  change: MigrationChange,
): Promise<void> {
  if (queryRunner.connection.options.type === 'postgres') {
    await queryRunner.query(`SELECT pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`);
  }
  const [last] = (await queryRunner.query(
    'SELECT seq, hash FROM audit_event ORDER BY seq DESC LIMIT 1',
  )) as { seq: number | string; hash: string }[];
  const key = auditKeyringOf(queryRunner.connection).current;
  const content: AuditContent = {
    seq: Number(last?.seq ?? 0) + 1,
    at: new Date().toISOString(),
    actorKind: 'system',
    operatorId: 'system',
    operatorName: 'system',
    action: change.action,
    target: change.target,
    outcome: 200,
    requestId: null,
    changes: change.changes,
    reason: null,
    keyId: key.id,
    prevHash: last?.hash ?? GENESIS_HASH,
  };
  const row: Record<string, unknown> = {
    seq: content.seq,
    at: content.at,
    actor_kind: content.actorKind,
    operator_id: content.operatorId,
    operator_name: content.operatorName,
    action: content.action,
    target: content.target,
    outcome: content.outcome,
    request_id: content.requestId,
    changes: JSON.stringify(content.changes),
    reason: content.reason,
    key_id: content.keyId,
    prev_hash: content.prevHash,
    hash: linkOf(content, key.key),
  };
  const columns = Object.keys(row);
  const values = columns.map(() => '?').join(', ');
  await queryRunner.query(
    forDatabase(
      kindOf(queryRunner.connection),
      `INSERT INTO audit_event (${columns.join(', ')}) VALUES (${values})`,
    ),
    Object.values(row),
  );
}
