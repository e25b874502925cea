import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/** The personal fields of a payment response, as PERSONAL_FIELDS named them then. */
const PERSONAL_FIELDS = [
  'customerFirstName',
  'customerLastName',
  'customerDob',
  'senderEmailAddress',
  'customerAccountNumber',
  'accountNumber',
  'customerCountryCode',
];

/**
 * Whether a session holds personal data now (`holds_personal_data`), so that the retention of
 * personal data finds, erases, counts and marks only the sessions that hold some: a partial index
 * of their final times. Sessions stored before are judged by their stored payment response (the
 * service's own JSON, where a field is there exactly when `"<field>":` is). Sessions without a
 * payment response never held any: the mark of an erasure that the retention once gave them is
 * taken back.
 */
export class PersonalDataHeld1764400000000 implements MigrationInterface {
  name = 'PersonalDataHeld1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'payment_session',
      new TableColumn({ name: 'holds_personal_data', type: 'boolean', default: false }),
    );
    const holds = PERSONAL_FIELDS.map((field) => `payment_response LIKE '%"${field}":%'`);
    await queryRunner.query(
      `UPDATE payment_session SET holds_personal_data = TRUE WHERE payment_response IS NOT NULL AND (${holds.join(' OR ')})`,
    );
    await queryRunner.query(
      'UPDATE payment_session SET personal_data_erased_at = NULL WHERE payment_response IS NULL',
    );
    await queryRunner.createIndex(
      'payment_session',
      new TableIndex({
        name: 'ix_payment_session_personal_final',
        columnNames: ['final_at'],
        where: 'holds_personal_data = TRUE',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('payment_session', 'ix_payment_session_personal_final');
    await queryRunner.dropColumn('payment_session', 'holds_personal_data');
  }
}
