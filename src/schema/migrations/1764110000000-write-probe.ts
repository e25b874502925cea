import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * One row the readiness check rewrites while the database refuses writes, to learn when it takes
 * them again (see WriteProbe).
 */
export class WriteProbe1764110000000 implements MigrationInterface {
  name = 'WriteProbe1764110000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'write_probe',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('write_probe');
  }
}
