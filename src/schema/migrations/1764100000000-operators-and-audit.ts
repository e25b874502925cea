import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { timestampType } from '../../database/dialect.js';

/**
 * Operators with tokens and roles, the audit trail, and what the retention of personal data
 * needs: when a session became final (epoch milliseconds) and when its personal data was erased.
 */
export class OperatorsAndAudit1764100000000 implements MigrationInterface {
  name = 'OperatorsAndAudit1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'operator',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'name', type: 'varchar', length: '64' },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'token_hash', type: 'varchar', length: '64' },
          { name: 'created_at', type: timestampType(queryRunner), default: 'CURRENT_TIMESTAMP' },
          { name: 'revoked_at', type: 'varchar', length: '24', isNullable: true },
          { name: 'last_used_at', type: 'bigint', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'ix_operator_name', columnNames: ['name'] }),
          new TableIndex({
            name: 'ix_operator_token_hash',
            columnNames: ['token_hash'],
            isUnique: true,
          }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'audit_event',
        columns: [
          { name: 'seq', type: 'integer', isPrimary: true },
          { name: 'at', type: 'varchar', length: '24' },
          { name: 'operator_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'operator_name', type: 'varchar', length: '64' },
          { name: 'action', type: 'varchar', length: '64' },
          { name: 'target', type: 'varchar', length: '300', isNullable: true },
          { name: 'outcome', type: 'integer' },
          { name: 'request_id', type: 'varchar', length: '128', isNullable: true },
          { name: 'changes', type: 'text' },
          { name: 'prev_hash', type: 'varchar', length: '64' },
          { name: 'hash', type: 'varchar', length: '64' },
        ],
        indices: [
          new TableIndex({ name: 'ix_audit_event_at', columnNames: ['at'] }),
          new TableIndex({ name: 'ix_audit_event_operator', columnNames: ['operator_id'] }),
          new TableIndex({ name: 'ix_audit_event_action', columnNames: ['action'] }),
          new TableIndex({ name: 'ix_audit_event_target', columnNames: ['target'] }),
        ],
      }),
    );
    await queryRunner.addColumns('payment_session', [
      new TableColumn({ name: 'final_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'personal_data_erased_at', type: 'bigint', isNullable: true }),
    ]);
    const epochMs =
      queryRunner.connection.driver.options.type === 'postgres'
        ? '(EXTRACT(EPOCH FROM updated_at) * 1000)::bigint'
        : "CAST(strftime('%s', updated_at) AS INTEGER) * 1000";
    await queryRunner.query(
      `UPDATE payment_session SET final_at = ${epochMs} WHERE status IN ('SUCCESSFUL', 'FAILED')`,
    );
    await queryRunner.createIndex(
      'payment_session',
      new TableIndex({ name: 'ix_payment_session_final_at', columnNames: ['final_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('payment_session', 'ix_payment_session_final_at');
    await queryRunner.dropColumns('payment_session', ['final_at', 'personal_data_erased_at']);
    await queryRunner.dropTable('audit_event');
    await queryRunner.dropTable('operator');
  }
}
