import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What the database answers a row that would sit outside the chain's sequence. */
const OUTSIDE_THE_CHAIN = 'audit_event.seq must be the next number of the chain (1, 2, 3...)';
const RENUMBERED = 'audit_event.seq never changes';

/**
 * The audit trail is one chain numbered 1, 2, 3…: the table takes an event only as the next
 * number after its head (never 0, a negative number or a gap past the head), and an event is
 * never renumbered. `verify` walks the chain from 1 and counts the rows besides, so a row the
 * schema did not stop (a database where these were dropped) is named there, never listed unseen.
 *
 * SQLite adds no CHECK to a table that exists, so both rules are triggers there; PostgreSQL has a
 * CHECK (NOT VALID: rows stored before are left to `verify`, never deleted) and a trigger for the
 * rest.
 */
export class AuditSequence1764700000000 implements MigrationInterface {
  name = 'AuditSequence1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query(
        'ALTER TABLE audit_event ADD CONSTRAINT ck_audit_event_seq CHECK (seq >= 1) NOT VALID',
      );
      await queryRunner.query(`
        CREATE FUNCTION audit_event_sequence() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'UPDATE' THEN
            IF NEW.seq <> OLD.seq THEN
              RAISE EXCEPTION '${RENUMBERED}' USING ERRCODE = 'check_violation';
            END IF;
          ELSIF NEW.seq < 1 OR NEW.seq > (SELECT COALESCE(MAX(seq), 0) + 1 FROM audit_event) THEN
            RAISE EXCEPTION '${OUTSIDE_THE_CHAIN}' USING ERRCODE = 'check_violation';
          END IF;
          RETURN NEW;
        END $$`);
      await queryRunner.query(
        'CREATE TRIGGER tr_audit_event_sequence BEFORE INSERT OR UPDATE OF seq ON audit_event ' +
          'FOR EACH ROW EXECUTE FUNCTION audit_event_sequence()',
      );
      return;
    }
    await queryRunner.query(
      'CREATE TRIGGER tr_audit_event_sequence BEFORE INSERT ON audit_event ' +
        'WHEN NEW.seq < 1 OR NEW.seq > (SELECT COALESCE(MAX(seq), 0) + 1 FROM audit_event) ' +
        `BEGIN SELECT RAISE(ABORT, '${OUTSIDE_THE_CHAIN}'); END`,
    );
    await queryRunner.query(
      'CREATE TRIGGER tr_audit_event_renumbered BEFORE UPDATE OF seq ON audit_event ' +
        'WHEN NEW.seq <> OLD.seq ' +
        `BEGIN SELECT RAISE(ABORT, '${RENUMBERED}'); END`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query('DROP TRIGGER tr_audit_event_sequence ON audit_event');
      await queryRunner.query('DROP FUNCTION audit_event_sequence()');
      await queryRunner.query('ALTER TABLE audit_event DROP CONSTRAINT ck_audit_event_seq');
      return;
    }
    await queryRunner.query('DROP TRIGGER tr_audit_event_renumbered');
    await queryRunner.query('DROP TRIGGER tr_audit_event_sequence');
  }
}
