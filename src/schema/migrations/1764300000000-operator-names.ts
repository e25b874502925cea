import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { appendMigrationEvent } from '../../audit/migration-events.js';
import { kindOf } from '../../database/dialect.js';
import { forDatabase } from '../../database/sql.js';

/** Names the audit trail gives to who is not an operator (RESERVED_OPERATOR_NAMES, as it was). */
const RESERVED = ['root', 'system', 'unknown'];

interface Row {
  id: string;
  name: string;
}

/**
 * Working operators' names become unique regardless of case, and `root`, `system` and `unknown`
 * are reserved: each operator keeps its name in lower case (`name_key`), unique among those not
 * revoked (a partial unique index, which also serves the lookup by name). A working
 * operator whose name is reserved, or the same as an older one's but for case, is renamed
 * `<name>-<first 8 characters of its id>` (keeping its token and role), and each renaming is
 * recorded in the audit trail as `renameOperator` by `system`.
 */
export class OperatorNames1764300000000 implements MigrationInterface {
  name = 'OperatorNames1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const working = (await queryRunner.query(
      'SELECT id, name FROM operator WHERE revoked_at IS NULL ORDER BY created_at, id',
    )) as Row[];
    const taken = new Set<string>();
    for (const { id, name } of working) {
      const folded = name.toLowerCase();
      if (!RESERVED.includes(folded) && !taken.has(folded)) {
        taken.add(folded);
        continue;
      }
      const renamed = `${name.slice(0, 55)}-${id.slice(0, 8)}`;
      taken.add(renamed.toLowerCase());
      await queryRunner.query(
        forDatabase(kindOf(queryRunner.connection), 'UPDATE operator SET name = ? WHERE id = ?'),
        [renamed, id],
      );
      await appendMigrationEvent(queryRunner, {
        action: 'renameOperator',
        target: id,
        changes: { name: { old: name, new: renamed } },
      });
    }
    await queryRunner.addColumn(
      'operator',
      new TableColumn({ name: 'name_key', type: 'varchar', length: '64', default: "''" }),
    );
    // Names are ASCII (the operator name rule): LOWER() folds them alike on both databases.
    await queryRunner.query('UPDATE operator SET name_key = LOWER(name)');
    await queryRunner.createIndex(
      'operator',
      new TableIndex({
        name: 'ux_operator_working_name',
        columnNames: ['name_key'],
        isUnique: true,
        where: 'revoked_at IS NULL',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('operator', 'ux_operator_working_name');
    await queryRunner.dropColumn('operator', 'name_key');
  }
}
