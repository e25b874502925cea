import { CACHE_MANAGER } from '@nestjs/cache-manager';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Cache } from 'cache-manager';
import { EntityManager, FindOptionsWhere, QueryFailedError, Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/errors/api-error.js';
import { SerializedBody, strongEtag } from '../common/http/response.js';
import { CoalescedRead, HotReads } from '../database/hot-reads.js';
import { WriteQueue } from '../database/write-queue.js';
import { CatalogRevision, CryptoPair } from './crypto-pair.entity.js';
import { CatalogPageDto, CryptoPairDto } from './dto/catalog-page.dto.js';
import { CatalogQuery, catalogQueryKey } from './dto/catalog-query.dto.js';
import {
  CryptoPairInputDto,
  CryptoPairPatchDto,
  StoredCryptoPairDto,
} from './dto/crypto-pair-input.dto.js';

// The triple is unique, so this order is total and stable across pages.
const ORDER = { currencyCode: 'ASC', protocol: 'ASC', countryCode: 'ASC' } as const;

/** The catalog of crypto pairs: cached reads for merchants, invalidating writes for operators. */
@Injectable()
export class CatalogService {
  private readonly revisionRead: CoalescedRead<number>;

  constructor(
    @InjectRepository(CryptoPair) private readonly pairs: Repository<CryptoPair>,
    @Inject(CACHE_MANAGER) private readonly cache: Cache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly writes: WriteQueue,
    hotReads: HotReads,
  ) {
    this.revisionRead = new CoalescedRead(() => hotReads.catalogRevision());
  }

  /**
   * Enabled pairs matching the query, serialised once and cached per catalog revision and
   * normalised query. The ETag covers the revision, so it changes with every catalog write.
   */
  async listEnabled(query: CatalogQuery): Promise<SerializedBody> {
    const ttlMs = this.config.catalogCacheTtlSeconds * 1000;
    const revision = await this.revision();
    const key = `catalog:${revision}:${catalogQueryKey(query)}`;
    if (ttlMs > 0) {
      const cached = await this.cache.get<SerializedBody>(key);
      if (cached) return cached;
    }
    const body = JSON.stringify(await this.queryPage(query, true));
    const page = { body, etag: strongEtag(body, `catalog-revision:${revision}`) };
    if (ttlMs > 0) await this.cache.set(key, page, ttlMs);
    return page;
  }

  /** Every pair, disabled ones included, for the operator. Never cached. */
  async listAll(query: CatalogQuery): Promise<{ payload: StoredCryptoPairDto[]; total: number }> {
    const [rows, total] = await this.pairs.findAndCount({
      where: this.where(query, false),
      order: ORDER,
      skip: query.page * query.size,
      take: query.size,
    });
    return { payload: rows.map(toStoredDto), total };
  }

  async create(input: CryptoPairInputDto): Promise<StoredCryptoPairDto> {
    return this.write(async (manager) => {
      const existing = await manager.findOneBy(CryptoPair, tripleOf(input));
      if (existing) throw duplicate(input);
      const saved = await manager.save(
        CryptoPair,
        manager.create(CryptoPair, { ...input, enabled: input.enabled ?? true }),
      );
      return toStoredDto(saved);
    });
  }

  async update(id: number, patch: CryptoPairPatchDto): Promise<StoredCryptoPairDto> {
    return this.write(async (manager) => {
      const pair = await manager.findOneBy(CryptoPair, { id });
      if (!pair) throw new ApiError('NOT_FOUND', { message: `Crypto pair ${id} not found.` });
      if (patch.currencyName !== undefined) pair.currencyName = patch.currencyName;
      if (patch.enabled !== undefined) pair.enabled = patch.enabled;
      return toStoredDto(await manager.save(CryptoPair, pair));
    });
  }

  async remove(id: number): Promise<void> {
    await this.write(async (manager) => {
      const result = await manager.delete(CryptoPair, { id });
      if (!result.affected) {
        throw new ApiError('NOT_FOUND', { message: `Crypto pair ${id} not found.` });
      }
    });
  }

  /**
   * Inserts or updates pairs by their unique triple inside the caller's transaction (seed files).
   * Returns how many rows were inserted or changed. The caller must call `invalidate` after commit.
   */
  async upsertAll(manager: EntityManager, inputs: CryptoPairInputDto[]): Promise<number> {
    let changed = 0;
    for (const input of inputs) {
      const enabled = input.enabled ?? true;
      const existing = await manager.findOneBy(CryptoPair, tripleOf(input));
      if (!existing) {
        await manager.insert(CryptoPair, { ...input, enabled });
        changed++;
      } else if (existing.currencyName !== input.currencyName || existing.enabled !== enabled) {
        await manager.update(
          CryptoPair,
          { id: existing.id },
          { currencyName: input.currencyName, enabled },
        );
        changed++;
      }
    }
    if (changed > 0) await this.bumpRevision(manager);
    return changed;
  }

  /**
   * Makes every later read see the current catalog: drops this process's cached pages. Other
   * processes see the new revision written with the change and stop using their old entries.
   */
  async invalidate(): Promise<void> {
    await this.cache.clear();
  }

  /** Runs a catalog write in one transaction that also moves the revision, then invalidates. */
  private async write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.writes.run(async (manager) => {
        const result = await work(manager);
        await this.bumpRevision(manager);
        return result;
      });
    } catch (error) {
      if (error instanceof QueryFailedError && /UNIQUE|unique/.test(error.message)) {
        throw new ApiError('CONFLICT', {
          message: 'A crypto pair with this currencyCode, protocol and countryCode already exists.',
        });
      }
      throw error;
    } finally {
      await this.invalidate();
    }
  }

  private async bumpRevision(manager: EntityManager): Promise<void> {
    await manager.increment(CatalogRevision, { id: 1 }, 'revision', 1);
  }

  /** The current revision; concurrent requests share one read (see CoalescedRead). */
  private revision(): Promise<number> {
    return this.revisionRead.get();
  }

  private async queryPage(query: CatalogQuery, enabledOnly: boolean): Promise<CatalogPageDto> {
    const [rows, total] = await this.pairs.findAndCount({
      select: { currencyCode: true, currencyName: true, protocol: true, countryCode: true },
      where: this.where(query, enabledOnly),
      order: ORDER,
      skip: query.page * query.size,
      take: query.size,
    });
    return {
      payload: rows.map(toPublicDto),
      page: { size: query.size, page: query.page, total },
    };
  }

  private where(query: CatalogQuery, enabledOnly: boolean): FindOptionsWhere<CryptoPair> {
    const where: FindOptionsWhere<CryptoPair> = {};
    if (enabledOnly) where.enabled = true;
    if (query.countryCode) where.countryCode = query.countryCode;
    if (query.currencyCode) where.currencyCode = query.currencyCode;
    if (query.protocol) where.protocol = query.protocol;
    return where;
  }
}

function tripleOf(input: { currencyCode: string; protocol: string; countryCode: string }) {
  return {
    currencyCode: input.currencyCode,
    protocol: input.protocol,
    countryCode: input.countryCode,
  };
}

function duplicate(input: CryptoPairInputDto): ApiError {
  return new ApiError('CONFLICT', {
    message: `Crypto pair ${input.currencyCode}/${input.protocol}/${input.countryCode} already exists.`,
  });
}

function toPublicDto(pair: CryptoPair): CryptoPairDto {
  return {
    currencyCode: pair.currencyCode,
    currencyName: pair.currencyName,
    protocol: pair.protocol,
    countryCode: pair.countryCode,
  };
}

function toStoredDto(pair: CryptoPair): StoredCryptoPairDto {
  return { id: pair.id, ...toPublicDto(pair), enabled: pair.enabled };
}
