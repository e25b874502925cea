import type { Tx } from '../database/transactions.js';
import type { DepositRecord } from './deposit-rules.js';
import type { DepositNetwork } from './networks.js';

/** What a pair is paid in: the asset a watcher looks for at an address. */
export interface QuotedAsset {
  currencyCode: string;
  protocol: string;
  chainId: number | null;
  tokenContract: string | null;
  decimals: number;
  confirmations: number;
}

/** A receive address given to a session, with the asset last quoted on its network. */
export interface DepositAddressRecord extends QuotedAsset {
  id: number;
  validationKey: string;
  merchantId: string;
  network: DepositNetwork;
  keyId: number;
  addressIndex: number;
  address: string;
  /** The address as reports are matched on it (lower case on EVM chains). */
  lookup: string;
  assignedAt: number;
}

/** A session's quote in force. */
export interface QuoteRecord extends QuotedAsset {
  validationKey: string;
  addressId: number;
  network: DepositNetwork;
  fiat: string;
  moneyMinor: number;
  price: string;
  /** Atomic units, a decimal integer. */
  amount: string;
  quotedAt: number;
  expiresAt: number;
  seenAt: number | null;
}

/** What a report may change of a stored deposit. */
export type DepositChange = Partial<
  Pick<DepositRecord, 'confirmations' | 'counted' | 'flag' | 'flaggedAmount' | 'updatedAt'>
>;

/** Storage of deposit addresses, quotes and deposits. */
export abstract class DepositRepository {
  abstract addressOfIn(
    tx: Tx,
    validationKey: string,
    network: DepositNetwork,
  ): Promise<DepositAddressRecord | undefined>;

  abstract addressByIdIn(tx: Tx, id: number): Promise<DepositAddressRecord | undefined>;

  /** Stores a new address; its id. A unique violation when the session, index or address is taken. */
  abstract insertAddress(tx: Tx, address: Omit<DepositAddressRecord, 'id'>): Promise<number>;

  /** Sets the asset a watcher looks for at the address (the pair last quoted on its network). */
  abstract setAddressAsset(tx: Tx, id: number, asset: QuotedAsset): Promise<void>;

  abstract quoteIn(tx: Tx, validationKey: string): Promise<QuoteRecord | undefined>;

  /** Puts the session's quote in force, replacing the one before. */
  abstract putQuote(tx: Tx, quote: QuoteRecord): Promise<void>;

  abstract quotesOfIn(tx: Tx, validationKeys: readonly string[]): Promise<QuoteRecord[]>;

  /**
   * The address a report names, locked until the transaction ends (PostgreSQL): the reports to
   * one address, and the expiry of its session, take turns, so each judges what the one before
   * it wrote.
   */
  abstract lockAddressIn(
    tx: Tx,
    network: DepositNetwork,
    lookup: string,
  ): Promise<DepositAddressRecord | undefined>;

  /** The addresses of these sessions, locked likewise. */
  abstract lockAddressesOfIn(
    tx: Tx,
    validationKeys: readonly string[],
  ): Promise<DepositAddressRecord[]>;

  abstract depositIn(
    tx: Tx,
    network: DepositNetwork,
    txid: string,
    outputIndex: number,
  ): Promise<DepositRecord | undefined>;

  /** The deposits of these sessions, in the order they were first seen. */
  abstract depositsOfIn(tx: Tx, validationKeys: readonly string[]): Promise<DepositRecord[]>;

  /** Stores a new deposit; its id. A unique violation when its (network, txid, index) exists. */
  abstract insertDeposit(tx: Tx, deposit: Omit<DepositRecord, 'id'>): Promise<number>;

  abstract updateDeposit(tx: Tx, id: number, change: DepositChange): Promise<void>;
}
