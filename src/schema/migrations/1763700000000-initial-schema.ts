import { MigrationInterface, QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';
import { timestampType } from '../../database/dialect.js';

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts = timestampType(queryRunner);
    const timestamps = [
      { name: 'created_at', type: ts, default: 'CURRENT_TIMESTAMP', isNullable: false },
      { name: 'updated_at', type: ts, default: 'CURRENT_TIMESTAMP', isNullable: false },
    ];

    await queryRunner.createTable(
      new Table({
        name: 'crypto_pair',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'currency_code', type: 'varchar', length: '16' },
          { name: 'currency_name', type: 'varchar', length: '100' },
          { name: 'protocol', type: 'varchar', length: '32' },
          { name: 'country_code', type: 'varchar', length: '2' },
          { name: 'enabled', type: 'boolean', default: true },
          ...timestamps,
        ],
        uniques: [
          new TableUnique({
            name: 'uq_crypto_pair_triple',
            columnNames: ['currency_code', 'protocol', 'country_code'],
          }),
        ],
        indices: [
          new TableIndex({
            name: 'ix_crypto_pair_listing',
            columnNames: ['enabled', 'currency_code', 'protocol', 'country_code'],
          }),
          new TableIndex({
            name: 'ix_crypto_pair_country',
            columnNames: ['enabled', 'country_code', 'currency_code', 'protocol'],
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'catalog_revision',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'revision', type: 'integer' },
        ],
      }),
    );
    await queryRunner.query('INSERT INTO catalog_revision (id, revision) VALUES (1, 1)');

    await queryRunner.createTable(
      new Table({
        name: 'payment_session',
        columns: [
          { name: 'validation_key', type: 'varchar', length: '255', isPrimary: true },
          { name: 'merchant_id', type: 'varchar', length: '64' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'detailed_status', type: 'varchar', length: '64', isNullable: true },
          { name: 'error_message', type: 'varchar', length: '1000', isNullable: true },
          { name: 'payment_response', type: 'text', isNullable: true },
          { name: 'version', type: 'integer', default: 1 },
          ...timestamps,
        ],
        indices: [
          new TableIndex({ name: 'ix_payment_session_merchant', columnNames: ['merchant_id'] }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'payment_session_transition',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'validation_key', type: 'varchar', length: '255' },
          { name: 'version', type: 'integer' },
          { name: 'from_status', type: 'varchar', length: '16', isNullable: true },
          { name: 'to_status', type: 'varchar', length: '16' },
          { name: 'detailed_status', type: 'varchar', length: '64', isNullable: true },
          { name: 'at', type: ts, default: 'CURRENT_TIMESTAMP' },
        ],
        indices: [
          new TableIndex({
            name: 'ix_transition_session',
            columnNames: ['validation_key', 'version'],
            isUnique: true,
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('payment_session_transition');
    await queryRunner.dropTable('payment_session');
    await queryRunner.dropTable('catalog_revision');
    await queryRunner.dropTable('crypto_pair');
  }
}
