import type { Tx } from '../../src/database/transactions.js';
import {
  CryptoPairRecord,
  CryptoPairRepository,
  CryptoPairTriple,
} from '../../src/catalog/crypto-pair.repository.js';
import {
  CATALOG_FILTERS,
  type CatalogFilter,
  type CatalogQuery,
} from '../../src/catalog/dto/catalog-query.dto.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

interface State {
  pairs: CryptoPairRecord[];
  nextId: number;
  revision: number;
}

const sameTriple = (a: CryptoPairTriple, b: CryptoPairTriple) =>
  a.currencyCode === b.currencyCode && a.protocol === b.protocol && a.countryCode === b.countryCode;

const order = (a: CryptoPairRecord, b: CryptoPairRecord) =>
  a.currencyCode.localeCompare(b.currencyCode) ||
  a.protocol.localeCompare(b.protocol) ||
  a.countryCode.localeCompare(b.countryCode);

export class InMemoryCryptoPairs extends CryptoPairRepository implements Rollbackable {
  private state: State = { pairs: [], nextId: 1, revision: 1 };
  /** Page queries made, to check what the service caches. */
  pageQueries = 0;

  async revision(): Promise<number> {
    return this.state.revision;
  }

  async page(
    query: CatalogQuery,
    enabledOnly: boolean,
  ): Promise<{ rows: CryptoPairRecord[]; total: number }> {
    this.pageQueries++;
    const matching = this.state.pairs
      .filter((p) => !enabledOnly || p.enabled)
      .filter((p) =>
        Object.entries(CATALOG_FILTERS).every(
          ([filter, property]) =>
            query[filter as CatalogFilter] === undefined ||
            p[property] === query[filter as CatalogFilter],
        ),
      )
      .sort(order);
    const start = query.page * query.size;
    return { rows: copy(matching.slice(start, start + query.size)), total: matching.length };
  }

  async enabledIn(countryCode: string, limit: number): Promise<CryptoPairRecord[]> {
    const enabled = this.state.pairs.filter((p) => p.enabled && p.countryCode === countryCode);
    return copy(enabled.sort(order).slice(0, limit));
  }

  async findByTriples(_tx: Tx, triples: CryptoPairTriple[]): Promise<CryptoPairRecord[]> {
    return copy(this.state.pairs.filter((p) => triples.some((triple) => sameTriple(p, triple))));
  }

  async insertMany(tx: Tx, pairs: Omit<CryptoPairRecord, 'id'>[]): Promise<void> {
    for (const pair of pairs) {
      if (!(await this.insert(tx, pair))) throw new Error('pair exists');
    }
  }

  async findById(_tx: Tx, id: number): Promise<CryptoPairRecord | undefined> {
    const pair = this.state.pairs.find((p) => p.id === id);
    return pair && copy(pair);
  }

  async insert(_tx: Tx, pair: Omit<CryptoPairRecord, 'id'>): Promise<CryptoPairRecord | undefined> {
    if (this.state.pairs.some((p) => sameTriple(p, pair))) return undefined;
    const created = { id: this.state.nextId++, ...copy(pair) };
    this.state.pairs.push(created);
    return copy(created);
  }

  async update(
    _tx: Tx,
    id: number,
    changes: Partial<Pick<CryptoPairRecord, 'currencyName' | 'enabled' | 'settlement'>>,
  ): Promise<void> {
    const pair = this.state.pairs.find((p) => p.id === id);
    if (pair) Object.assign(pair, changes);
  }

  async delete(_tx: Tx, id: number): Promise<boolean> {
    const before = this.state.pairs.length;
    this.state.pairs = this.state.pairs.filter((p) => p.id !== id);
    return this.state.pairs.length < before;
  }

  async bumpRevision(): Promise<void> {
    this.state.revision++;
  }

  all(): CryptoPairRecord[] {
    return copy(this.state.pairs);
  }

  snapshot(): unknown {
    return copy(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copy(snapshot as State);
  }
}
