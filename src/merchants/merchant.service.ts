import { CacheableMemory } from '@cacheable/memory';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { ApiError } from '../common/errors/api-error.js';
import { WriteQueue } from '../database/write-queue.js';
import { generateApiKey, hashApiKey } from './api-key.js';
import { CreateMerchantDto, CreatedApiKeyDto, MerchantDto } from './dto/merchant.dto.js';
import { ApiKey, Merchant } from './merchant.entity.js';

export interface ResolvedKey {
  keyId: string;
  merchantId: string;
}

/** The merchant whose keys the sandbox quick start publishes; production refuses it. */
export const DEMO_MERCHANT_ID = 'demo';

/** Resolved keys kept at most. */
const API_KEY_CACHE_ENTRIES = 10_000;

/** How long a resolved key is trusted without asking the database again. */
const KEY_CACHE_TTL_MS = 60_000;

/** Merchants and their API keys. */
@Injectable()
export class MerchantService {
  /** Resolved keys by hash: synchronous, it sits on every request's path. */
  private readonly resolvedKeys = new CacheableMemory({
    lruSize: API_KEY_CACHE_ENTRIES,
    useClone: false,
  });

  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    private readonly writes: WriteQueue,
  ) {}

  /**
   * The key's merchant, or undefined for an unknown or revoked key. Known keys are cached by
   * hash, so a valid key costs no database round trip; revocation drops the entry.
   */
  async resolve(plaintext: string): Promise<ResolvedKey | undefined> {
    const hash = hashApiKey(plaintext);
    const cached = this.resolvedKeys.get<ResolvedKey>(hash);
    if (cached) return cached;
    const key = await this.keys.findOne({
      where: { keyHash: hash, revokedAt: IsNull() },
      select: { id: true, merchantId: true },
    });
    if (!key) return undefined;
    const resolved = { keyId: key.id, merchantId: key.merchantId };
    this.resolvedKeys.set(hash, resolved, KEY_CACHE_TTL_MS);
    return resolved;
  }

  async createMerchant(input: CreateMerchantDto): Promise<MerchantDto> {
    return this.writes.run(async (manager) => {
      if (await manager.existsBy(Merchant, { id: input.id })) {
        throw new ApiError('CONFLICT', {
          message: `Merchant ${input.id} already exists.`,
          field: 'id',
        });
      }
      await manager.insert(Merchant, { id: input.id, name: input.name });
      return { id: input.id, name: input.name };
    });
  }

  async createKey(merchantId: string): Promise<CreatedApiKeyDto> {
    return this.writes.run(async (manager) => {
      await this.requireMerchant(manager, merchantId);
      const apiKey = generateApiKey();
      const keyId = randomUUID();
      await manager.insert(ApiKey, {
        id: keyId,
        merchantId,
        keyHash: hashApiKey(apiKey),
        revokedAt: null,
      });
      return { keyId, apiKey };
    });
  }

  /** Revokes a key; the next request with it is refused. Revoking twice is a no-op. */
  async revokeKey(merchantId: string, keyId: string): Promise<void> {
    const hash = await this.writes.run(async (manager) => {
      await this.requireMerchant(manager, merchantId);
      const key = await manager.findOneBy(ApiKey, { id: keyId, merchantId });
      if (!key)
        throw new ApiError('NOT_FOUND', { message: `API key ${keyId} not found.`, field: 'keyId' });
      if (key.revokedAt === null) {
        await manager.update(ApiKey, { id: keyId }, { revokedAt: new Date().toISOString() });
      }
      return key.keyHash;
    });
    this.resolvedKeys.delete(hash);
  }

  /**
   * Seed files: creates or renames the merchant and adds the plaintext keys it lacks, inside
   * the caller's transaction. Returns whether anything changed.
   */
  async upsertFromSeed(
    manager: EntityManager,
    merchant: CreateMerchantDto,
    apiKeys: string[],
  ): Promise<boolean> {
    let changed = false;
    const existing = await manager.findOneBy(Merchant, { id: merchant.id });
    if (!existing) {
      await manager.insert(Merchant, { id: merchant.id, name: merchant.name });
      changed = true;
    } else if (existing.name !== merchant.name) {
      await manager.update(Merchant, { id: merchant.id }, { name: merchant.name });
      changed = true;
    }
    for (const plaintext of apiKeys) {
      const keyHash = hashApiKey(plaintext);
      const key = await manager.findOneBy(ApiKey, { keyHash });
      if (key && key.merchantId !== merchant.id) {
        throw new ApiError('CONFLICT', { message: 'This API key belongs to another merchant.' });
      }
      if (!key) {
        await manager.insert(ApiKey, {
          id: randomUUID(),
          merchantId: merchant.id,
          keyHash,
          revokedAt: null,
        });
        changed = true;
      }
    }
    return changed;
  }

  /** True while the demo merchant still has a key that works. */
  async demoKeyActive(): Promise<boolean> {
    return this.keys.existsBy({ merchantId: DEMO_MERCHANT_ID, revokedAt: IsNull() });
  }

  private async requireMerchant(manager: EntityManager, merchantId: string): Promise<void> {
    if (!(await manager.existsBy(Merchant, { id: merchantId }))) {
      throw new ApiError('NOT_FOUND', {
        message: `Merchant ${merchantId} not found.`,
        field: 'merchantId',
      });
    }
  }
}
