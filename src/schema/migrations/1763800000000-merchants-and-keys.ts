import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { timestampType } from '../../database/dialect.js';

export class MerchantsAndKeys1763800000000 implements MigrationInterface {
  name = 'MerchantsAndKeys1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts = timestampType(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'merchant',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'created_at', type: ts, default: 'CURRENT_TIMESTAMP' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'api_key',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'merchant_id', type: 'varchar', length: '64' },
          { name: 'key_hash', type: 'varchar', length: '64' },
          { name: 'created_at', type: ts, default: 'CURRENT_TIMESTAMP' },
          { name: 'revoked_at', type: 'varchar', length: '32', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'ix_api_key_merchant', columnNames: ['merchant_id'] }),
          new TableIndex({ name: 'uq_api_key_hash', columnNames: ['key_hash'], isUnique: true }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('api_key');
    await queryRunner.dropTable('merchant');
  }
}
