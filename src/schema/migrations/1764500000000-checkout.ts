import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

/**
 * The checkout (init-iframe, its page and tokens): who created a session and when (epoch ms, for
 * newest-first cursor pages), who made each transition, the origins a merchant lets frame its
 * checkout page, and the checkout of a session with its tokens (stored only as SHA-256 hashes).
 */
export class Checkout1764500000000 implements MigrationInterface {
  name = 'Checkout1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('payment_session', [
      new TableColumn({ name: 'created_by', type: 'varchar', length: '300', isNullable: true }),
      new TableColumn({ name: 'created_at_ms', type: 'bigint', isNullable: true }),
    ]);
    const postgres = queryRunner.connection.driver.options.type === 'postgres';
    await queryRunner.query(
      postgres
        ? 'UPDATE payment_session SET created_at_ms = (EXTRACT(EPOCH FROM created_at) * 1000)::bigint'
        : "UPDATE payment_session SET created_at_ms = CAST(strftime('%s', created_at) AS INTEGER) * 1000",
    );
    await queryRunner.createIndex(
      'payment_session',
      new TableIndex({
        name: 'ix_payment_session_created',
        columnNames: ['created_at_ms', 'validation_key'],
      }),
    );
    await queryRunner.addColumn(
      'payment_session_transition',
      new TableColumn({ name: 'actor', type: 'varchar', length: '300', isNullable: true }),
    );
    await queryRunner.addColumn(
      'merchant',
      new TableColumn({ name: 'checkout_origins', type: 'text', isNullable: true }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'checkout',
        columns: [
          { name: 'validation_key', type: 'varchar', length: '255', isPrimary: true },
          { name: 'merchant_id', type: 'varchar', length: '64' },
          { name: 'request', type: 'text' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'state', type: 'varchar', length: '8' },
          { name: 'chosen_pair', type: 'varchar', length: '64', isNullable: true },
          { name: 'page_nonce_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'personal_data_erased_at', type: 'bigint', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'ix_checkout_open', columnNames: ['state', 'expires_at'] }),
          new TableIndex({
            name: 'ix_checkout_personal_data',
            columnNames: ['personal_data_erased_at', 'expires_at'],
          }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'checkout_token',
        columns: [
          { name: 'token_hash', type: 'varchar', length: '64', isPrimary: true },
          { name: 'validation_key', type: 'varchar', length: '255' },
          { name: 'expires_at', type: 'bigint' },
        ],
        indices: [
          new TableIndex({ name: 'ix_checkout_token_session', columnNames: ['validation_key'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('checkout_token');
    await queryRunner.dropTable('checkout');
    await queryRunner.dropColumn('merchant', 'checkout_origins');
    await queryRunner.dropColumn('payment_session_transition', 'actor');
    await queryRunner.dropIndex('payment_session', 'ix_payment_session_created');
    await queryRunner.dropColumns('payment_session', ['created_by', 'created_at_ms']);
  }
}
