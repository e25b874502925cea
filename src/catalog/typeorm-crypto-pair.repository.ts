import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type BatchColumn, insertBatch, selectByKeys } from '../database/batch-statements.js';
import { EntityColumns } from '../database/entity-columns.js';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { insertUnlessDuplicate, managerOf } from '../database/typeorm-transactions.js';
import { CatalogRevision, CryptoPair } from './crypto-pair.entity.js';
import {
  CryptoPairRecord,
  CryptoPairRepository,
  CryptoPairTriple,
} from './crypto-pair.repository.js';
import type { Settlement } from '../deposits/settlement.js';
import { isDepositNetwork } from '../deposits/networks.js';
import { CATALOG_FILTERS, type CatalogFilter, type CatalogQuery } from './dto/catalog-query.dto.js';

/** The columns of a pair's settlement. */
const SETTLEMENT = [
  'settlementNetwork',
  'settlementChainId',
  'settlementTokenContract',
  'settlementDecimals',
  'settlementConfirmations',
] as const satisfies readonly (keyof CryptoPair)[];
/** What a CryptoPairRecord is read from. */
const RECORD = [
  'id',
  'currencyCode',
  'currencyName',
  'protocol',
  'countryCode',
  'enabled',
  ...SETTLEMENT,
] as const satisfies readonly (keyof CryptoPair)[];
/** What a new pair is given, in the order of its batch's columns. */
const NEW_PAIR = [
  'currencyCode',
  'currencyName',
  'protocol',
  'countryCode',
  'enabled',
  ...SETTLEMENT,
] as const satisfies readonly (keyof CryptoPair)[];

/** A pair's row as read: its columns by property. */
type PairRow = Pick<CryptoPair, (typeof RECORD)[number]>;
/** The unique triple, and the order of every list of pairs. */
const TRIPLE = [
  'currencyCode',
  'protocol',
  'countryCode',
] as const satisfies readonly (keyof CryptoPairTriple)[];

@Injectable()
export class TypeOrmCryptoPairRepository extends CryptoPairRepository {
  /** The catalog's revision: read on every catalog request, a fixed statement. */
  private readonly revisionSql: string;
  /** Pairs as read inside a transaction. */
  private readonly selectPairs: string;
  /** The columns of a new pair, as written by insertMany. */
  private readonly newPairColumns: BatchColumn[];
  private readonly table: string;
  private readonly tripleColumns: string[];

  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() dataSource: DataSource,
  ) {
    super();
    const revision = new EntityColumns(dataSource, CatalogRevision);
    this.revisionSql = `${revision.select(['revision'])} WHERE ${revision.name('id')} = 1`;
    const pairs = new EntityColumns(dataSource, CryptoPair);
    this.selectPairs = pairs.select(RECORD);
    this.newPairColumns = pairs.batch(NEW_PAIR);
    this.table = pairs.table;
    this.tripleColumns = TRIPLE.map((property) => pairs.name(property));
  }

  async revision(): Promise<number> {
    const row = await this.reads.first<{ revision: number }>(this.revisionSql, []);
    return row?.revision ?? 0;
  }

  async page(
    query: CatalogQuery,
    enabledOnly: boolean,
  ): Promise<{ rows: CryptoPairRecord[]; total: number }> {
    const read = this.reads.of(CryptoPair, 'p', RECORD);
    if (enabledOnly) read.query.andWhere('p.enabled = TRUE');
    for (const [filter, property] of Object.entries(CATALOG_FILTERS)) {
      const value = query[filter as CatalogFilter];
      if (value !== undefined)
        read.query.andWhere(`p.${property} = :${filter}`, { [filter]: value });
    }
    // The triple is unique, so the order is total and stable across pages.
    for (const property of TRIPLE) read.query.addOrderBy(`p.${property}`);
    const { rows, total } = await read.page(query);
    return { rows: rows.map(toRecord), total };
  }

  async enabledIn(countryCode: string, limit: number): Promise<CryptoPairRecord[]> {
    const read = this.reads.of(CryptoPair, 'p', RECORD);
    read.query.where('p.enabled = TRUE').andWhere('p.countryCode = :countryCode', { countryCode });
    for (const property of TRIPLE) read.query.addOrderBy(`p.${property}`);
    return (await read.rows(limit)).map(toRecord);
  }

  async findById(tx: Tx, id: number): Promise<CryptoPairRecord | undefined> {
    const row = await managerOf(tx).findOneBy(CryptoPair, { id });
    return row ? toRecord(row) : undefined;
  }

  async findByTriples(tx: Tx, triples: CryptoPairTriple[]): Promise<CryptoPairRecord[]> {
    const rows = await selectByKeys<PairRow>(
      tx,
      this.selectPairs,
      this.tripleColumns,
      triples.map((t) => [t.currencyCode, t.protocol, t.countryCode]),
    );
    return rows.map((row) =>
      toRecord({
        ...row,
        id: Number(row.id),
        enabled: Boolean(row.enabled),
        settlementChainId: numberOrNull(row.settlementChainId),
        settlementDecimals: numberOrNull(row.settlementDecimals),
        settlementConfirmations: numberOrNull(row.settlementConfirmations),
      }),
    );
  }

  async insertMany(tx: Tx, pairs: Omit<CryptoPairRecord, 'id'>[]): Promise<void> {
    await insertBatch(
      tx,
      this.table,
      this.newPairColumns,
      pairs.map((pair) => {
        const row = toRow(pair);
        return NEW_PAIR.map((property) => row[property]);
      }),
    );
  }

  async insert(tx: Tx, pair: Omit<CryptoPairRecord, 'id'>): Promise<CryptoPairRecord | undefined> {
    const result = await insertUnlessDuplicate(tx, CryptoPair, toRow(pair));
    return result && { id: Number(result.identifiers[0].id), ...pair };
  }

  async update(
    tx: Tx,
    id: number,
    changes: Partial<Pick<CryptoPairRecord, 'currencyName' | 'enabled' | 'settlement'>>,
  ): Promise<void> {
    const { settlement, ...fields } = changes;
    const columns =
      settlement === undefined ? fields : { ...fields, ...settlementColumns(settlement) };
    if (Object.keys(columns).length === 0) return;
    await managerOf(tx).update(CryptoPair, { id }, columns);
  }

  async delete(tx: Tx, id: number): Promise<boolean> {
    const result = await managerOf(tx).delete(CryptoPair, { id });
    return Boolean(result.affected);
  }

  async bumpRevision(tx: Tx): Promise<void> {
    await managerOf(tx).increment(CatalogRevision, { id: 1 }, 'revision', 1);
  }
}

function toRecord(pair: PairRow): CryptoPairRecord {
  return {
    id: pair.id,
    currencyCode: pair.currencyCode,
    currencyName: pair.currencyName,
    protocol: pair.protocol,
    countryCode: pair.countryCode,
    enabled: pair.enabled,
    settlement: settlementOf(pair),
  };
}

function settlementOf(row: PairRow): Settlement | null {
  const network = row.settlementNetwork;
  if (!isDepositNetwork(network) || row.settlementDecimals === null) return null;
  return {
    network,
    ...(row.settlementChainId === null ? {} : { chainId: row.settlementChainId }),
    ...(row.settlementTokenContract === null ? {} : { tokenContract: row.settlementTokenContract }),
    decimals: row.settlementDecimals,
    confirmations: row.settlementConfirmations ?? 1,
  };
}

/** A pair's settlement as its five columns (all null: none). */
function settlementColumns(
  settlement: Settlement | null,
): Pick<CryptoPair, (typeof SETTLEMENT)[number]> {
  return {
    settlementNetwork: settlement?.network ?? null,
    settlementChainId: settlement?.chainId ?? null,
    settlementTokenContract: settlement?.tokenContract ?? null,
    settlementDecimals: settlement?.decimals ?? null,
    settlementConfirmations: settlement?.confirmations ?? null,
  };
}

function toRow({ settlement, ...pair }: Omit<CryptoPairRecord, 'id'>): Omit<PairRow, 'id'> {
  return { ...pair, ...settlementColumns(settlement) };
}

function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
