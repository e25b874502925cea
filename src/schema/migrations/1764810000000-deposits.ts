import { MigrationInterface, QueryRunner, Table, TableIndex, TableUnique } from 'typeorm';

const id = {
  name: 'id',
  type: 'integer',
  isPrimary: true,
  isGenerated: true,
  generationStrategy: 'increment' as const,
};

/**
 * Paying a checkout on chain (src/deposits/): merchants' watch-only keys, the addresses given to
 * sessions, each session's quote, the transfers watchers report, and the assets' rates.
 */
export class Deposits1764810000000 implements MigrationInterface {
  name = 'Deposits1764810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'deposit_key',
        columns: [
          id,
          { name: 'merchant_id', type: 'varchar', length: '64' },
          { name: 'network', type: 'varchar', length: '16' },
          { name: 'extended_public_key', type: 'varchar', length: '120' },
          { name: 'public_key', type: 'varchar', length: '66' },
          { name: 'fingerprint', type: 'varchar', length: '8' },
          { name: 'active', type: 'boolean' },
          { name: 'next_index', type: 'integer', default: 0 },
          { name: 'funded_through', type: 'integer', default: -1 },
          { name: 'created_at', type: 'bigint' },
        ],
        uniques: [
          new TableUnique({ name: 'uq_deposit_key_public_key', columnNames: ['public_key'] }),
        ],
        indices: [
          new TableIndex({
            name: 'uq_deposit_key_current',
            columnNames: ['merchant_id', 'network'],
            isUnique: true,
            where: 'active = TRUE',
          }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'deposit_address',
        columns: [
          id,
          { name: 'validation_key', type: 'varchar', length: '255' },
          { name: 'merchant_id', type: 'varchar', length: '64' },
          { name: 'network', type: 'varchar', length: '16' },
          { name: 'key_id', type: 'integer' },
          { name: 'address_index', type: 'integer' },
          { name: 'address', type: 'varchar', length: '100' },
          { name: 'lookup', type: 'varchar', length: '100' },
          { name: 'currency_code', type: 'varchar', length: '16' },
          { name: 'protocol', type: 'varchar', length: '32' },
          { name: 'chain_id', type: 'integer', isNullable: true },
          { name: 'token_contract', type: 'varchar', length: '64', isNullable: true },
          { name: 'decimals', type: 'integer' },
          { name: 'confirmations', type: 'integer' },
          { name: 'assigned_at', type: 'bigint' },
        ],
        uniques: [
          new TableUnique({
            name: 'uq_deposit_address_session',
            columnNames: ['validation_key', 'network'],
          }),
          new TableUnique({
            name: 'uq_deposit_address_index',
            columnNames: ['key_id', 'address_index'],
          }),
          new TableUnique({
            name: 'uq_deposit_address_lookup',
            columnNames: ['network', 'lookup'],
          }),
        ],
        indices: [
          new TableIndex({ name: 'ix_deposit_address_network', columnNames: ['network', 'id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'deposit_quote',
        columns: [
          { name: 'validation_key', type: 'varchar', length: '255', isPrimary: true },
          { name: 'address_id', type: 'integer' },
          { name: 'currency_code', type: 'varchar', length: '16' },
          { name: 'protocol', type: 'varchar', length: '32' },
          { name: 'network', type: 'varchar', length: '16' },
          { name: 'chain_id', type: 'integer', isNullable: true },
          { name: 'token_contract', type: 'varchar', length: '64', isNullable: true },
          { name: 'decimals', type: 'integer' },
          { name: 'confirmations', type: 'integer' },
          { name: 'fiat', type: 'varchar', length: '16' },
          { name: 'money_minor', type: 'bigint' },
          { name: 'price', type: 'varchar', length: '40' },
          { name: 'amount', type: 'varchar', length: '80' },
          { name: 'quoted_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'seen_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'deposit',
        columns: [
          id,
          { name: 'network', type: 'varchar', length: '16' },
          { name: 'txid', type: 'varchar', length: '100' },
          { name: 'output_index', type: 'integer' },
          { name: 'address_id', type: 'integer' },
          { name: 'validation_key', type: 'varchar', length: '255' },
          { name: 'chain_id', type: 'integer', isNullable: true },
          { name: 'asset', type: 'varchar', length: '64' },
          { name: 'amount', type: 'varchar', length: '80' },
          { name: 'confirmations', type: 'integer' },
          { name: 'counted', type: 'boolean', default: false },
          { name: 'flag', type: 'varchar', length: '16', isNullable: true },
          { name: 'flagged_amount', type: 'varchar', length: '80', isNullable: true },
          { name: 'first_seen_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        uniques: [
          new TableUnique({
            name: 'uq_deposit_transfer',
            columnNames: ['network', 'txid', 'output_index'],
          }),
        ],
        indices: [
          new TableIndex({ name: 'ix_deposit_session', columnNames: ['validation_key'] }),
          new TableIndex({ name: 'ix_deposit_flagged', columnNames: ['flag', 'id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'asset_rate',
        columns: [
          { name: 'currency_code', type: 'varchar', length: '16', isPrimary: true },
          { name: 'fiat', type: 'varchar', length: '16', isPrimary: true },
          { name: 'price', type: 'varchar', length: '40' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'asset_rate',
      'deposit',
      'deposit_quote',
      'deposit_address',
      'deposit_key',
    ]) {
      await queryRunner.dropTable(table);
    }
  }
}
