import type { Tx } from '../database/transactions.js';
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

/** Storage of deposit addresses and quotes. */
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
}
