import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';

/** One (currency, protocol, country) pair a merchant may use for a crypto payout. */
@Entity('crypto_pair')
@Unique('uq_crypto_pair_triple', ['currencyCode', 'protocol', 'countryCode'])
// Serves the unfiltered listing: WHERE enabled ORDER BY currency, protocol, country.
@Index('ix_crypto_pair_listing', ['enabled', 'currencyCode', 'protocol', 'countryCode'])
// Serves the country filter with the same order.
@Index('ix_crypto_pair_country', ['enabled', 'countryCode', 'currencyCode', 'protocol'])
export class CryptoPair {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'currency_code', type: 'varchar', length: 16 })
  currencyCode: string;

  @Column({ name: 'currency_name', type: 'varchar', length: 100 })
  currencyName: string;

  @Column({ type: 'varchar', length: 32 })
  protocol: string;

  @Column({ name: 'country_code', type: 'varchar', length: 2 })
  countryCode: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** How the pair is paid on chain (src/deposits/settlement.ts); all five null when it is not. */
  @Column({ name: 'settlement_network', type: 'varchar', length: 16, nullable: true })
  settlementNetwork: string | null;

  @Column({ name: 'settlement_chain_id', type: 'integer', nullable: true })
  settlementChainId: number | null;

  @Column({ name: 'settlement_token_contract', type: 'varchar', length: 64, nullable: true })
  settlementTokenContract: string | null;

  @Column({ name: 'settlement_decimals', type: 'integer', nullable: true })
  settlementDecimals: number | null;

  @Column({ name: 'settlement_confirmations', type: 'integer', nullable: true })
  settlementConfirmations: number | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt: Date;
}

/**
 * One row whose revision grows with every catalog write, in the same transaction. Readers key
 * their cache on it, so a write made by any process (the seed script, another instance) is
 * visible on the next read.
 */
@Entity('catalog_revision')
export class CatalogRevision {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  revision: number;
}
