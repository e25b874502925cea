import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * How a catalog pair is paid on chain (src/deposits/settlement.ts): its network, EVM chain,
 * token contract, decimals and confirmations; all null for a pair that is not.
 */
export class PairSettlement1764800000000 implements MigrationInterface {
  name = 'PairSettlement1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('crypto_pair', [
      new TableColumn({
        name: 'settlement_network',
        type: 'varchar',
        length: '16',
        isNullable: true,
      }),
      new TableColumn({ name: 'settlement_chain_id', type: 'integer', isNullable: true }),
      new TableColumn({
        name: 'settlement_token_contract',
        type: 'varchar',
        length: '64',
        isNullable: true,
      }),
      new TableColumn({ name: 'settlement_decimals', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'settlement_confirmations', type: 'integer', isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('crypto_pair', [
      'settlement_network',
      'settlement_chain_id',
      'settlement_token_contract',
      'settlement_decimals',
      'settlement_confirmations',
    ]);
  }
}
