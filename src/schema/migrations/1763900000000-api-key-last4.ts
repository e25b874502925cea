import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * The last 4 characters of each API key's plaintext, shown to the operator. Keys created before
 * this column existed keep NULL: their plaintext was never stored, so it cannot be derived.
 */
export class ApiKeyLast41763900000000 implements MigrationInterface {
  name = 'ApiKeyLast41763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'api_key',
      new TableColumn({ name: 'last4', type: 'varchar', length: '4', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('api_key', 'last4');
  }
}
