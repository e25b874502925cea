import type { Tx } from '../database/transactions.js';
import type { Settlement } from '../deposits/settlement.js';
import type { CatalogQuery } from './dto/catalog-query.dto.js';

/** A stored (currency, protocol, country) pair. Codes are upper case. */
export interface CryptoPairRecord {
  id: number;
  currencyCode: string;
  currencyName: string;
  protocol: string;
  countryCode: string;
  enabled: boolean;
  /** How the pair is paid on chain; null when it is not (never shown to merchants). */
  settlement: Settlement | null;
}

export type CryptoPairTriple = Pick<CryptoPairRecord, 'currencyCode' | 'protocol' | 'countryCode'>;

/** Storage of the catalog and of its revision, which grows with every write. */
export abstract class CryptoPairRepository {
  /** The catalog revision, read on the hot path (outside any transaction). */
  abstract revision(): Promise<number>;

  /**
   * One page of pairs matching the query's filters (CATALOG_FILTERS), ordered by currencyCode,
   * protocol, countryCode (a total order: the triple is unique), and how many match in all.
   */
  abstract page(
    query: CatalogQuery,
    enabledOnly: boolean,
  ): Promise<{ rows: CryptoPairRecord[]; total: number }>;

  /**
   * The enabled pairs of a country in the catalog's order, settlement included, at most `limit`:
   * what a checkout may offer.
   */
  abstract enabledIn(countryCode: string, limit: number): Promise<CryptoPairRecord[]>;

  abstract findById(tx: Tx, id: number): Promise<CryptoPairRecord | undefined>;

  /** The stored pairs among these triples (any order). */
  abstract findByTriples(tx: Tx, triples: CryptoPairTriple[]): Promise<CryptoPairRecord[]>;

  /** Inserts new pairs (seed files); throws when one of the triples exists already. */
  abstract insertMany(tx: Tx, pairs: Omit<CryptoPairRecord, 'id'>[]): Promise<void>;

  /** Inserts a pair; undefined when its triple exists already. */
  abstract insert(
    tx: Tx,
    pair: Omit<CryptoPairRecord, 'id'>,
  ): Promise<CryptoPairRecord | undefined>;

  abstract update(
    tx: Tx,
    id: number,
    changes: Partial<Pick<CryptoPairRecord, 'currencyName' | 'enabled' | 'settlement'>>,
  ): Promise<void>;

  /** Deletes a pair; false when there was none with this id. */
  abstract delete(tx: Tx, id: number): Promise<boolean>;

  /** Moves the revision on, inside the transaction of a catalog write. */
  abstract bumpRevision(tx: Tx): Promise<void>;
}
