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
import { CATALOG_FILTERS, type CatalogFilter, type CatalogQuery } from './dto/catalog-query.dto.js';

/** What a CryptoPairRecord is made of. */
const RECORD = [
  'id',
  'currencyCode',
  'currencyName',
  'protocol',
  'countryCode',
  'enabled',
] as const satisfies readonly (keyof CryptoPairRecord)[];
/** What a new pair is given, in the order of its batch's columns. */
const NEW_PAIR = [
  'currencyCode',
  'currencyName',
  'protocol',
  'countryCode',
  'enabled',
] as const satisfies readonly (keyof CryptoPairRecord)[];
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
    return read.page(query);
  }

  async findById(tx: Tx, id: number): Promise<CryptoPairRecord | undefined> {
    const row = await managerOf(tx).findOneBy(CryptoPair, { id });
    return row ? toRecord(row) : undefined;
  }

  async findByTriples(tx: Tx, triples: CryptoPairTriple[]): Promise<CryptoPairRecord[]> {
    const rows = await selectByKeys<CryptoPairRecord>(
      tx,
      this.selectPairs,
      this.tripleColumns,
      triples.map((t) => [t.currencyCode, t.protocol, t.countryCode]),
    );
    return rows.map((row) => ({ ...row, id: Number(row.id), enabled: Boolean(row.enabled) }));
  }

  async insertMany(tx: Tx, pairs: Omit<CryptoPairRecord, 'id'>[]): Promise<void> {
    await insertBatch(
      tx,
      this.table,
      this.newPairColumns,
      pairs.map((pair) => NEW_PAIR.map((property) => pair[property])),
    );
  }

  async insert(tx: Tx, pair: Omit<CryptoPairRecord, 'id'>): Promise<CryptoPairRecord | undefined> {
    const result = await insertUnlessDuplicate(tx, CryptoPair, pair);
    return result && { id: Number(result.identifiers[0].id), ...pair };
  }

  async update(
    tx: Tx,
    id: number,
    changes: Partial<Pick<CryptoPairRecord, 'currencyName' | 'enabled'>>,
  ): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await managerOf(tx).update(CryptoPair, { id }, changes);
  }

  async delete(tx: Tx, id: number): Promise<boolean> {
    const result = await managerOf(tx).delete(CryptoPair, { id });
    return Boolean(result.affected);
  }

  async bumpRevision(tx: Tx): Promise<void> {
    await managerOf(tx).increment(CatalogRevision, { id: 1 }, 'revision', 1);
  }
}

function toRecord(pair: CryptoPair): CryptoPairRecord {
  return {
    id: pair.id,
    currencyCode: pair.currencyCode,
    currencyName: pair.currencyName,
    protocol: pair.protocol,
    countryCode: pair.countryCode,
    enabled: pair.enabled,
  };
}
