import { CACHE_MANAGER } from '@nestjs/cache-manager';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { changesBetween } from '../audit/changes.js';
import type { OperatorCall } from '../access/operator-call.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Cache } from 'cache-manager';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/errors/api-error.js';
import { withSourceVersion, type Listing } from '../common/http/envelope.js';
import { CoalescedRead } from '../database/coalesced-read.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { CacheLookups } from '../metrics/cache-lookups.js';
import {
  CryptoPairRecord,
  CryptoPairRepository,
  CryptoPairTriple,
} from './crypto-pair.repository.js';
import { canonicalSettlement, type Settlement } from '../deposits/settlement.js';
import { CryptoPairDto } from './dto/catalog-page.dto.js';
import { CatalogQuery, catalogQueryKey } from './dto/catalog-query.dto.js';
import {
  CryptoPairInputDto,
  CryptoPairPatchDto,
  StoredCryptoPairDto,
} from './dto/crypto-pair-input.dto.js';

/** The catalog of crypto pairs: cached reads for merchants, invalidating writes for operators. */
@Injectable()
export class CatalogService {
  private readonly revisionRead: CoalescedRead<number>;

  constructor(
    private readonly pairs: CryptoPairRepository,
    private readonly transactions: Transactions,
    @Inject(CACHE_MANAGER) private readonly cache: Cache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditTrail,
    private readonly lookups: CacheLookups,
  ) {
    // Concurrent requests share one revision read, never one that began before they arrived.
    this.revisionRead = new CoalescedRead(() => pairs.revision());
  }

  /**
   * Enabled pairs matching the query, cached per catalog revision and normalised query. A cached
   * page is frozen: it is handed out again as it is (and its bytes with it). It carries the
   * revision, so its ETag changes with every catalog write.
   */
  async listEnabled(query: CatalogQuery): Promise<Listing<CryptoPairDto>> {
    const ttlMs = this.config.catalogCacheTtlSeconds * 1000;
    const revision = await this.revisionRead.get();
    const key = `catalog:${revision}:${catalogQueryKey(query)}`;
    if (ttlMs > 0) {
      const cached = await this.cache.get<Listing<CryptoPairDto>>(key);
      this.lookups.cacheLookup('catalog', Boolean(cached));
      if (cached) return cached;
    }
    const { rows, total } = await this.pairs.page(query, true);
    const page = Object.freeze(
      withSourceVersion(
        { items: rows.map(toPublicDto), page: { size: query.size, page: query.page, total } },
        `catalog-revision:${revision}`,
      ),
    );
    if (ttlMs > 0) await this.cache.set(key, page, ttlMs);
    return page;
  }

  /** Every pair, disabled ones included, for the operator. Never cached. */
  async listAll(query: CatalogQuery): Promise<{ payload: StoredCryptoPairDto[]; total: number }> {
    const { rows, total } = await this.pairs.page(query, false);
    return { payload: rows.map(toStoredDto), total };
  }

  async create(input: CryptoPairInputDto, call?: OperatorCall): Promise<StoredCryptoPairDto> {
    return this.write(async (tx) => {
      const created = await this.pairs.insert(tx, {
        ...pick(input),
        enabled: input.enabled ?? true,
        settlement: settlementOf(input.settlement),
      });
      if (!created) throw duplicate(input);
      const stored = toStoredDto(created);
      await this.audit.record(tx, call, {
        target: String(stored.id),
        changes: changesBetween(null, auditedPair(stored)),
      });
      return stored;
    });
  }

  async update(
    id: number,
    patch: CryptoPairPatchDto,
    call?: OperatorCall,
  ): Promise<StoredCryptoPairDto> {
    return this.write(async (tx) => {
      const pair = await this.pairs.findById(tx, id);
      if (!pair) throw pairNotFound(id);
      const changes: Partial<Pick<CryptoPairRecord, 'currencyName' | 'enabled' | 'settlement'>> =
        {};
      if (patch.currencyName !== undefined) changes.currencyName = patch.currencyName;
      if (patch.enabled !== undefined) changes.enabled = patch.enabled;
      if (patch.settlement !== undefined) changes.settlement = settlementOf(patch.settlement);
      await this.pairs.update(tx, id, changes);
      const stored = toStoredDto({ ...pair, ...changes });
      const changed = changesBetween(auditedPair(toStoredDto(pair)), auditedPair(stored));
      if (Object.keys(changed).length > 0) {
        await this.audit.record(tx, call, { target: String(id), changes: changed });
      }
      return stored;
    });
  }

  async remove(id: number, call?: OperatorCall): Promise<void> {
    await this.write(async (tx) => {
      const pair = await this.pairs.findById(tx, id);
      if (!pair || !(await this.pairs.delete(tx, id))) throw pairNotFound(id);
      await this.audit.record(tx, call, {
        target: String(id),
        changes: changesBetween(auditedPair(toStoredDto(pair)), null),
      });
    });
  }

  /**
   * Inserts or updates pairs by their unique triple inside the caller's transaction: a seed file's
   * pairs, a batch at a time; returns how many rows were inserted or changed. The revision is the
   * caller's to move, once, when any changed (`bumpRevision`), and `invalidate` after commit.
   * Triples must be distinct.
   */
  async upsertBatch(tx: Tx, inputs: CryptoPairInputDto[]): Promise<number> {
    const stored = new Map(
      (await this.pairs.findByTriples(tx, inputs)).map((pair) => [tripleOf(pair), pair]),
    );
    const inserts: Omit<CryptoPairRecord, 'id'>[] = [];
    let changed = 0;
    for (const input of inputs) {
      const enabled = input.enabled ?? true;
      const settlement = settlementOf(input.settlement);
      const existing = stored.get(tripleOf(input));
      if (!existing) {
        inserts.push({ ...pick(input), enabled, settlement });
      } else if (
        existing.currencyName !== input.currencyName ||
        existing.enabled !== enabled ||
        JSON.stringify(existing.settlement) !== JSON.stringify(settlement)
      ) {
        const { currencyName } = input;
        await this.pairs.update(tx, existing.id, { currencyName, enabled, settlement });
        changed++;
      }
    }
    await this.pairs.insertMany(tx, inserts);
    return changed + inserts.length;
  }

  /**
   * The enabled pairs of a country, in the catalog's order, each with its settlement (null when
   * it has none): what a checkout may offer. Read afresh, never cached.
   */
  enabledIn(countryCode: string, limit: number): Promise<CryptoPairRecord[]> {
    return this.pairs.enabledIn(countryCode, limit);
  }

  /** Moves the catalog revision, inside the transaction of a catalog write. */
  async bumpRevision(tx: Tx): Promise<void> {
    await this.pairs.bumpRevision(tx);
  }

  /**
   * Makes every later read see the current catalog: drops this process's cached pages. Other
   * processes see the new revision written with the change and stop using their old entries.
   */
  async invalidate(): Promise<void> {
    await this.cache.clear();
  }

  /** Runs a catalog write in one transaction that also moves the revision, then invalidates. */
  private async write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.transactions.run(async (tx) => {
        const result = await work(tx);
        await this.pairs.bumpRevision(tx);
        return result;
      });
    } finally {
      await this.invalidate();
    }
  }
}

function tripleOf(pair: CryptoPairTriple): string {
  return JSON.stringify([pair.currencyCode, pair.protocol, pair.countryCode]);
}

/** A settlement as stored: none when absent or cleared; the token contract in canonical form. */
function settlementOf(given: Settlement | null | undefined): Settlement | null {
  return given ? canonicalSettlement(given) : null;
}

function pick(input: CryptoPairInputDto): Omit<CryptoPairRecord, 'id' | 'enabled' | 'settlement'> {
  const { currencyCode, currencyName, protocol, countryCode } = input;
  return { currencyCode, currencyName, protocol, countryCode };
}

function duplicate(pair: CryptoPairInputDto): ApiError {
  return new ApiError('CONFLICT', {
    message: `Crypto pair ${pair.currencyCode}/${pair.protocol}/${pair.countryCode} already exists.`,
  });
}

function pairNotFound(id: number): ApiError {
  return new ApiError('NOT_FOUND', { message: `Crypto pair ${id} not found.` });
}

/** A pair as the audit trail shows it: its fields, its id being the event's target. */
function auditedPair({ id: _id, ...fields }: StoredCryptoPairDto): Record<string, unknown> {
  return fields;
}

function toPublicDto(pair: CryptoPairRecord): CryptoPairDto {
  return {
    currencyCode: pair.currencyCode,
    currencyName: pair.currencyName,
    protocol: pair.protocol,
    countryCode: pair.countryCode,
  };
}

function toStoredDto(pair: CryptoPairRecord): StoredCryptoPairDto {
  return {
    id: pair.id,
    ...toPublicDto(pair),
    enabled: pair.enabled,
    ...(pair.settlement ? { settlement: pair.settlement } : {}),
  };
}
