import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { timestampType } from '../../database/dialect.js';

/**
 * Merchant callbacks: the URLs of a session, the merchants' callback secrets (encrypted), and the
 * outbox of callbacks with their attempts. Times the dispatcher compares are epoch milliseconds,
 * so claiming due callbacks reads the same on every database.
 */
export class Callbacks1764000000000 implements MigrationInterface {
  name = 'Callbacks1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const url = (name: string) =>
      new TableColumn({ name, type: 'varchar', length: '2048', isNullable: true });
    await queryRunner.addColumns('payment_session', [url('return_url'), url('error_url')]);
    await queryRunner.addColumns('merchant', [
      new TableColumn({ name: 'callback_secret', type: 'text', isNullable: true }),
      new TableColumn({ name: 'previous_callback_secret', type: 'text', isNullable: true }),
      new TableColumn({ name: 'callback_secret_rotated_at', type: 'bigint', isNullable: true }),
    ]);
    await queryRunner.createTable(
      new Table({
        name: 'callback',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'webhook_id', type: 'varchar', length: '64', isUnique: true },
          { name: 'validation_key', type: 'varchar', length: '255' },
          { name: 'merchant_id', type: 'varchar', length: '64' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'url', type: 'varchar', length: '2048' },
          { name: 'body', type: 'text' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'first_attempt_at', type: 'bigint', isNullable: true },
          { name: 'next_attempt_at', type: 'bigint' },
          { name: 'lease_owner', type: 'varchar', length: '64', isNullable: true },
          { name: 'lease_until', type: 'bigint', isNullable: true },
          { name: 'state_after_redelivery', type: 'varchar', length: '16', isNullable: true },
          { name: 'created_at', type: timestampType(queryRunner), default: 'CURRENT_TIMESTAMP' },
        ],
        indices: [
          new TableIndex({ name: 'ix_callback_due', columnNames: ['state', 'next_attempt_at'] }),
          new TableIndex({ name: 'ix_callback_session', columnNames: ['validation_key'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'callback_attempt',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'callback_id', type: 'varchar', length: '36' },
          { name: 'at', type: 'bigint' },
          { name: 'http_status', type: 'integer', isNullable: true },
          { name: 'error', type: 'varchar', length: '200', isNullable: true },
          { name: 'duration_ms', type: 'integer' },
        ],
        indices: [
          new TableIndex({
            name: 'ix_callback_attempt_callback',
            columnNames: ['callback_id', 'id'],
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('callback_attempt');
    await queryRunner.dropTable('callback');
    await queryRunner.dropColumns('merchant', [
      'callback_secret',
      'previous_callback_secret',
      'callback_secret_rotated_at',
    ]);
    await queryRunner.dropColumns('payment_session', ['return_url', 'error_url']);
  }
}
