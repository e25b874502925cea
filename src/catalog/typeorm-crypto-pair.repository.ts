import { Injectable } from '@nestjs/common';
import { type BatchColumn, insertBatch, selectByKeys } from '../database/batch-statements.js';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { insertUnlessDuplicate, managerOf } from '../database/typeorm-transactions.js';
import { CatalogRevision, CryptoPair } from './crypto-pair.entity.js';
import {
  CryptoPairRecord,
  CryptoPairRepository,
  CryptoPairTriple,
} from './crypto-pair.repository.js';
import type { CatalogQuery } from './dto/catalog-query.dto.js';

const REVISION_SQL = 'SELECT revision FROM catalog_revision WHERE id = 1';

const SELECT_PAIRS =
  'SELECT id, currency_code AS "currencyCode", currency_name AS "currencyName", protocol, ' +
  'country_code AS "countryCode", enabled FROM crypto_pair';

const PAIR_COLUMNS: BatchColumn[] = [
  { name: 'currency_code', type: 'text' },
  { name: 'currency_name', type: 'text' },
  { name: 'protocol', type: 'text' },
  { name: 'country_code', type: 'text' },
  { name: 'enabled', type: 'boolean' },
];

@Injectable()
export class TypeOrmCryptoPairRepository extends CryptoPairRepository {
  constructor(private readonly reads: PreparedReads) {
    super();
  }

  async revision(): Promise<number> {
    const row = await this.reads.first<{ revision: number }>(REVISION_SQL, []);
    return row?.revision ?? 0;
  }

  async page(
    query: CatalogQuery,
    enabledOnly: boolean,
  ): Promise<{ rows: CryptoPairRecord[]; total: number }> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    if (enabledOnly) conditions.push('enabled = TRUE');
    for (const [column, value] of [
      ['country_code', query.countryCode],
      ['currency_code', query.currencyCode],
      ['protocol', query.protocol],
    ] as const) {
      if (value === undefined) continue;
      conditions.push(`${column} = ?`);
      values.push(value);
    }
    const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
    // The triple is unique, so the order is total and stable across pages. The count and the
    // page in one statement, so both come from the same snapshot; a page
    // past the end is the one row of the count with no pair.
    const rows = await this.reads.all<CryptoPairRecord & { total: number | string }>(
      `SELECT t.total, p.* FROM (SELECT COUNT(*) AS total FROM crypto_pair${where}) t ` +
        `LEFT JOIN (${SELECT_PAIRS}${where} ORDER BY currency_code, protocol, country_code ` +
        'LIMIT ? OFFSET ?) p ON 1 = 1',
      [...values, ...values, query.size, query.page * query.size],
    );
    return {
      rows: rows
        .filter((row) => row.id !== null)
        .map(({ total: _total, ...row }) => ({
          ...row,
          id: Number(row.id),
          enabled: Boolean(row.enabled),
        })),
      total: Number(rows[0]?.total ?? 0),
    };
  }

  async findByTriple(tx: Tx, triple: CryptoPairTriple): Promise<CryptoPairRecord | undefined> {
    const row = await managerOf(tx).findOneBy(CryptoPair, {
      currencyCode: triple.currencyCode,
      protocol: triple.protocol,
      countryCode: triple.countryCode,
    });
    return row ? toRecord(row) : undefined;
  }

  async findById(tx: Tx, id: number): Promise<CryptoPairRecord | undefined> {
    const row = await managerOf(tx).findOneBy(CryptoPair, { id });
    return row ? toRecord(row) : undefined;
  }

  async findByTriples(tx: Tx, triples: CryptoPairTriple[]): Promise<CryptoPairRecord[]> {
    const rows = await selectByKeys<CryptoPairRecord>(
      tx,
      SELECT_PAIRS,
      ['currency_code', 'protocol', 'country_code'],
      triples.map((t) => [t.currencyCode, t.protocol, t.countryCode]),
    );
    return rows.map((row) => ({ ...row, id: Number(row.id), enabled: Boolean(row.enabled) }));
  }

  async insertMany(tx: Tx, pairs: Omit<CryptoPairRecord, 'id'>[]): Promise<void> {
    await insertBatch(
      tx,
      'crypto_pair',
      PAIR_COLUMNS,
      pairs.map((p) => [p.currencyCode, p.currencyName, p.protocol, p.countryCode, p.enabled]),
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
