import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AccountNumbers } from '../../checkout/account-numbers.js';
import { loadConfig } from '../../config/app-config.js';
import { kindOf } from '../../database/dialect.js';
import { forDatabase } from '../../database/sql.js';

/** Checkouts converted per statement that reads them. */
const PAGE = 500;

/**
 * The destination account of a stored init-iframe request becomes what the service stores now
 * (src/checkout/account-numbers.ts): masked like `accountNumber`, beside a keyed digest, never in
 * clear, as every account number. Requests stored before held the number as sent.
 */
export class MaskedDestinationAccounts1764600000000 implements MigrationInterface {
  name = 'MaskedDestinationAccounts1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The rows rewritten leave no copy of the number behind in the file's free space (the
    // service sets it at start too, after the migrations: src/database/database-files.ts).
    if (queryRunner.connection.options.type !== 'postgres') {
      await queryRunner.query('PRAGMA secure_delete = ON');
    }
    const kind = kindOf(queryRunner.connection);
    let accounts: AccountNumbers | undefined;
    let after = '';
    for (;;) {
      const rows = (await queryRunner.query(
        forDatabase(
          kind,
          'SELECT validation_key AS "validationKey", request FROM checkout ' +
            'WHERE validation_key > ? ORDER BY validation_key LIMIT ?',
        ),
        [after, PAGE],
      )) as { validationKey: string; request: string }[];
      if (rows.length === 0) return;
      for (const { validationKey, request } of rows) {
        const stored = JSON.parse(request) as Record<string, unknown>;
        const number = stored.destinationAccountNumber;
        if (typeof number !== 'string' || 'destinationAccountDigest' in stored) continue;
        accounts ??= AccountNumbers.of(loadConfig().callbacks.secretKey, queryRunner.connection);
        const { masked, digest } = accounts.stored(number);
        const converted = JSON.stringify({
          ...stored,
          destinationAccountNumber: masked,
          destinationAccountDigest: digest,
        });
        await queryRunner.query(
          forDatabase(kind, 'UPDATE checkout SET request = ? WHERE validation_key = ?'),
          [converted, validationKey],
        );
      }
      after = rows[rows.length - 1].validationKey;
    }
  }

  async down(): Promise<void> {
    // The numbers are not kept: nothing to give back.
  }
}
