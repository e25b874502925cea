import { MigrationInterface, QueryRunner } from 'typeorm';
import { appendMigrationEvent, placeholders } from '../../audit/migration-events.js';

/** Names the audit trail gives to who is not an operator (RESERVED_OPERATOR_NAMES, as it was). */
const RESERVED = ['root', 'system', 'unknown'];

interface Row {
  id: string;
  name: string;
}

/**
 * Working operators' names become unique regardless of case, and `root`, `system` and `unknown`
 * are reserved: a unique index on the lower-case name of every operator not revoked. A working
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
      const [name$, id$] = placeholders(queryRunner, 2).split(', ');
      await queryRunner.query(`UPDATE operator SET name = ${name$} WHERE id = ${id$}`, [
        renamed,
        id,
      ]);
      await appendMigrationEvent(queryRunner, {
        action: 'renameOperator',
        target: id,
        changes: { name: { old: name, new: renamed } },
      });
    }
    await queryRunner.query(
      'CREATE UNIQUE INDEX ux_operator_working_name ON operator (LOWER(name)) WHERE revoked_at IS NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX ux_operator_working_name');
  }
}
