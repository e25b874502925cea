import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { KEY_CHAIN_ACTION } from '../../audit/audit-chain.js';
import { appendMigrationEvent } from '../../audit/migration-events.js';

/**
 * The audit chain becomes keyed: each event records who acted by kind (`root`, `system`,
 * `operator`, `unknown`), why a refused request was refused, and which audit key made its link
 * (an HMAC-SHA256 from now on). Events already stored keep their SHA-256 links; one keyed event
 * of `system` follows them (`keyAuditChain`, its previous link the head they end in), so that
 * nobody without the key can rewrite or shorten them unnoticed.
 */
export class KeyedAuditChain1764200000000 implements MigrationInterface {
  name = 'KeyedAuditChain1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('audit_event', [
      new TableColumn({ name: 'actor_kind', type: 'varchar', length: '8', default: "'unknown'" }),
      new TableColumn({ name: 'reason', type: 'varchar', length: '32', isNullable: true }),
      new TableColumn({ name: 'key_id', type: 'varchar', length: '16', isNullable: true }),
    ]);
    await queryRunner.query(
      "UPDATE audit_event SET actor_kind = CASE WHEN operator_id IS NULL THEN 'unknown' " +
        "WHEN operator_id IN ('root', 'system') THEN operator_id ELSE 'operator' END",
    );
    const [{ events }] = (await queryRunner.query(
      'SELECT COUNT(*) AS events FROM audit_event',
    )) as { events: number | string }[];
    if (Number(events) === 0) return;
    await appendMigrationEvent(queryRunner, {
      action: KEY_CHAIN_ACTION,
      target: null,
      changes: { link: { old: 'SHA-256', new: 'HMAC-SHA256' } },
    });
  }

  /** Refused: the release before this one could verify no keyed link, and no event is deleted. */
  async down(): Promise<void> {
    throw new Error(
      'KeyedAuditChain1764200000000 cannot be reverted: the keyed audit events would have to be deleted',
    );
  }
}
