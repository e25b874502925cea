import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { EPOCH_MS } from '../common/epoch-ms.js';
import type { DepositNetwork } from './networks.js';

/**
 * A merchant's watch-only account key for a network (never a private key). A key belongs to one
 * merchant and one network for good: its row stays when it is replaced or removed, so that its
 * index sequence continues if it is registered again, and no other merchant can take it.
 */
@Entity('deposit_key')
@Unique('uq_deposit_key_public_key', ['publicKey'])
// At most one current key per merchant and network.
@Index('uq_deposit_key_current', ['merchantId', 'network'], {
  unique: true,
  where: 'active = TRUE',
})
export class DepositKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'merchant_id', type: 'varchar', length: 64 })
  merchantId: string;

  @Column({ type: 'varchar', length: 16 })
  network: DepositNetwork;

  /** The key as the operator gave it (xpub…, zpub…). */
  @Column({ name: 'extended_public_key', type: 'varchar', length: 120 })
  extendedPublicKey: string;

  /** The account's public key (33 bytes, hex): what makes two key texts the same key. */
  @Column({ name: 'public_key', type: 'varchar', length: 66 })
  publicKey: string;

  /** BIP32 fingerprint of the key itself (8 hex digits): what the audit trail names. */
  @Column({ type: 'varchar', length: 8 })
  fingerprint: string;

  /** Whether it is the merchant's current key for its network. */
  @Column({ type: 'boolean' })
  active: boolean;

  /** The next receive index to give (taken and moved on in the transaction that gives it). */
  @Column({ name: 'next_index', type: 'integer', default: 0 })
  nextIndex: number;

  /** The highest index whose address received a deposit; -1 while none did. */
  @Column({ name: 'funded_through', type: 'integer', default: -1 })
  fundedThrough: number;

  /** When it was first registered (epoch ms). */
  @Column({ name: 'created_at', type: 'bigint', transformer: EPOCH_MS })
  createdAt: number;
}

/**
 * A receive address given to a payment session: one per session and network, never given twice
 * (unique per key and index, and per network and address). It carries the asset it was last
 * quoted for on its network: what a watcher of that network looks for.
 */
@Entity('deposit_address')
@Unique('uq_deposit_address_session', ['validationKey', 'network'])
@Unique('uq_deposit_address_index', ['keyId', 'addressIndex'])
@Unique('uq_deposit_address_lookup', ['network', 'lookup'])
// The watcher's list: a network's addresses in the order given.
@Index('ix_deposit_address_network', ['network', 'id'])
export class DepositAddress {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 64 })
  merchantId: string;

  @Column({ type: 'varchar', length: 16 })
  network: DepositNetwork;

  @Column({ name: 'key_id', type: 'integer' })
  keyId: number;

  @Column({ name: 'address_index', type: 'integer' })
  addressIndex: number;

  /** As shown to the shopper (EIP-55 on EVM chains). */
  @Column({ type: 'varchar', length: 100 })
  address: string;

  /** The address as reports are matched on it: lower case on EVM chains, as it is elsewhere. */
  @Column({ type: 'varchar', length: 100 })
  lookup: string;

  @Column({ name: 'currency_code', type: 'varchar', length: 16 })
  currencyCode: string;

  @Column({ type: 'varchar', length: 32 })
  protocol: string;

  @Column({ name: 'chain_id', type: 'integer', nullable: true })
  chainId: number | null;

  @Column({ name: 'token_contract', type: 'varchar', length: 64, nullable: true })
  tokenContract: string | null;

  @Column({ type: 'integer' })
  decimals: number;

  @Column({ type: 'integer' })
  confirmations: number;

  /** When it was first given (epoch ms): a watcher scans from the first block at or after it. */
  @Column({ name: 'assigned_at', type: 'bigint', transformer: EPOCH_MS })
  assignedAt: number;
}

/**
 * A session's quote in force: the pair, its settlement, the fiat money, the price it was made at
 * and the amount to pay in atomic units, until when it holds, and when a deposit was first seen
 * for it (from then on it stands, whatever its time).
 */
@Entity('deposit_quote')
export class DepositQuote {
  @PrimaryColumn({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  @Column({ name: 'address_id', type: 'integer' })
  addressId: number;

  @Column({ name: 'currency_code', type: 'varchar', length: 16 })
  currencyCode: string;

  @Column({ type: 'varchar', length: 32 })
  protocol: string;

  @Column({ type: 'varchar', length: 16 })
  network: DepositNetwork;

  @Column({ name: 'chain_id', type: 'integer', nullable: true })
  chainId: number | null;

  @Column({ name: 'token_contract', type: 'varchar', length: 64, nullable: true })
  tokenContract: string | null;

  @Column({ type: 'integer' })
  decimals: number;

  @Column({ type: 'integer' })
  confirmations: number;

  /** The session's currency, the rate's fiat. */
  @Column({ type: 'varchar', length: 16 })
  fiat: string;

  @Column({ name: 'money_minor', type: 'bigint', transformer: EPOCH_MS })
  moneyMinor: number;

  /** The price of one unit of the asset in the fiat, as the rate gave it. */
  @Column({ type: 'varchar', length: 40 })
  price: string;

  /** The amount to pay, in atomic units (a decimal integer). */
  @Column({ type: 'varchar', length: 80 })
  amount: string;

  @Column({ name: 'quoted_at', type: 'bigint', transformer: EPOCH_MS })
  quotedAt: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: EPOCH_MS })
  expiresAt: number;

  /** When a deposit of the quoted asset was first seen: the quote stands from then on. */
  @Column({ name: 'seen_at', type: 'bigint', nullable: true, transformer: EPOCH_MS })
  seenAt: number | null;
}

/**
 * A transfer a watcher reported to a deposit address, one per (network, txid, index): its amount
 * and confirmations as last reported, whether it counts toward its session, and why not (flag).
 */
@Entity('deposit')
@Unique('uq_deposit_transfer', ['network', 'txid', 'outputIndex'])
@Index('ix_deposit_session', ['validationKey'])
@Index('ix_deposit_flagged', ['flag', 'id'])
export class Deposit {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 16 })
  network: DepositNetwork;

  @Column({ type: 'varchar', length: 100 })
  txid: string;

  /** The output index (bitcoin), the log index of a token transfer, 0 for a coin transfer. */
  @Column({ name: 'output_index', type: 'integer' })
  outputIndex: number;

  @Column({ name: 'address_id', type: 'integer' })
  addressId: number;

  @Column({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  @Column({ name: 'chain_id', type: 'integer', nullable: true })
  chainId: number | null;

  /** The token contract, or `native` for the network's own coin. */
  @Column({ type: 'varchar', length: 64 })
  asset: string;

  /** Atomic units, a decimal integer. */
  @Column({ type: 'varchar', length: 80 })
  amount: string;

  @Column({ type: 'integer' })
  confirmations: number;

  @Column({ type: 'boolean', default: false })
  counted: boolean;

  /** OTHER_ASSET, OTHER_CHAIN, LATE, OVERPAID or UNDERPAID: for an operator to act on. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  flag: string | null;

  /** What the flag is about, in atomic units: the excess, the amount to refund. */
  @Column({ name: 'flagged_amount', type: 'varchar', length: 80, nullable: true })
  flaggedAmount: string | null;

  @Column({ name: 'first_seen_at', type: 'bigint', transformer: EPOCH_MS })
  firstSeenAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: EPOCH_MS })
  updatedAt: number;
}

/** The price of one unit of an asset in a fiat currency, as an operator (or a feed) last put it. */
@Entity('asset_rate')
export class AssetRate {
  @PrimaryColumn({ name: 'currency_code', type: 'varchar', length: 16 })
  currencyCode: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  fiat: string;

  /** A positive decimal text (src/deposits/crypto-amount.ts, parsePrice). */
  @Column({ type: 'varchar', length: 40 })
  price: string;

  @Column({ name: 'updated_at', type: 'bigint', transformer: EPOCH_MS })
  updatedAt: number;
}
