import type { Tx } from '../database/transactions.js';

/** A stored rate: the price of one unit of an asset in a fiat currency, and when it was put. */
export interface RateRecord {
  currencyCode: string;
  fiat: string;
  price: string;
  updatedAt: number;
}

/** Storage of the assets' rates. */
export abstract class RateRepository {
  /** Every rate, by asset then fiat, read afresh. */
  abstract list(): Promise<RateRecord[]>;

  /** The rates of a fiat currency, read afresh. */
  abstract inFiat(fiat: string): Promise<RateRecord[]>;

  abstract findIn(tx: Tx, currencyCode: string, fiat: string): Promise<RateRecord | undefined>;

  /** Puts the rate, replacing the one of the same asset and fiat. */
  abstract put(tx: Tx, rate: RateRecord): Promise<void>;
}
