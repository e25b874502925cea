import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import type { MaybePromise } from '../common/maybe-async.js';
import { ChangeFeed } from '../database/change-feed.js';
import { ChangeFeedCache } from '../database/change-feed-cache.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { REDACTED } from '../audit/changes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../access/operator-call.js';
import { KeyResolver, type ResolvedKey } from '../access/access-ports.js';
import { generateApiKey, hashApiKey } from '../access/api-key.js';
import { ApiKeyViewDto, CreatedApiKeyDto } from './dto/merchant.dto.js';
import type { PageRequest } from '../database/prepared-reads.js';
import { ApiKeyRecord, MerchantRepository } from './merchant.repository.js';
import { DEMO_MERCHANT_ID, merchantNotFound, requireMerchant } from './merchant-id.js';
import { SANDBOX_API_KEY } from '../openapi/swagger.js';

/** What became of a plaintext key of a merchant: working, revoked, or never stored for it. */
export type KeyState = 'active' | 'revoked' | 'unknown';

/** How many characters of a key the operator may see: enough to tell keys apart, no more. */
const SHOWN_KEY_CHARACTERS = 4;

/** Memory the resolved keys may take (an entry is a few hundred bytes). */
const API_KEY_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * How long a resolved key is trusted without asking the database again. Revocations reach every
 * instance through the change feed at once; this is only the safety net behind it.
 */
export const KEY_CACHE_TTL_MS = 10_000;

/** The change-feed kind that says an API key (its hash in the payload) was revoked. */
const KEY_REVOKED = 'api-key-revoked';

/** Merchants' API keys: created, listed, revoked, and resolved on every merchant request. */
@Injectable()
export class ApiKeyService extends KeyResolver {
  /** Resolved keys by hash: synchronous, it sits on every request's path. */
  private readonly resolvedKeys: ChangeFeedCache<ResolvedKey>;

  constructor(
    private readonly merchants: MerchantRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
    private readonly changes: ChangeFeed,
  ) {
    super();
    this.resolvedKeys = new ChangeFeedCache(
      changes,
      KEY_REVOKED,
      { maxBytes: API_KEY_CACHE_BYTES, ttlMs: KEY_CACHE_TTL_MS },
      async (hash) => {
        const found = await merchants.findActiveKey(hash);
        return found && { keyId: found.keyId, merchantId: found.merchantId };
      },
    );
  }

  /**
   * The key's merchant, or undefined for an unknown or revoked key; a kept key (ChangeFeedCache)
   * at once, without a promise or a database round trip.
   */
  resolve(plaintext: string): MaybePromise<ResolvedKey | undefined> {
    return this.resolvedKeys.resolve(hashApiKey(plaintext));
  }

  async createKey(merchantId: string, call?: OperatorCall): Promise<CreatedApiKeyDto> {
    return this.transactions.run(async (tx) => {
      await requireMerchant(this.merchants, tx, merchantId);
      const apiKey = generateApiKey();
      const keyId = randomUUID();
      await this.merchants.insertKey(tx, { id: keyId, merchantId, ...storedForm(apiKey) });
      await this.audit.record(tx, call, {
        target: keyId,
        changes: {
          merchantId: { old: null, new: merchantId },
          apiKey: { old: null, new: REDACTED },
        },
      });
      return { keyId, apiKey };
    });
  }

  /** Revokes a key; the next request with it is refused. Revoking twice is a no-op. */
  async revokeKey(merchantId: string, keyId: string, call?: OperatorCall): Promise<void> {
    const hash = await this.transactions.run(async (tx) => {
      await requireMerchant(this.merchants, tx, merchantId);
      const key = await this.merchants.findKey(tx, merchantId, keyId);
      if (!key) {
        throw new ApiError('NOT_FOUND', { message: `API key ${keyId} not found.`, field: 'keyId' });
      }
      if (key.revokedAt === null) {
        const revokedAt = new Date().toISOString();
        await this.merchants.revokeKey(tx, keyId, revokedAt);
        await this.changes.announce(tx, KEY_REVOKED, key.keyHash);
        await this.audit.record(tx, call, {
          target: keyId,
          changes: { revokedAt: { old: null, new: revokedAt } },
        });
      }
      return key.keyHash;
    });
    // This instance refuses the key at once; the others when the announcement reaches them.
    this.resolvedKeys.forget(hash);
  }

  /**
   * Seed files: adds the plaintext keys the merchant lacks, inside the caller's transaction.
   * Returns whether any was added; a key of another merchant is refused.
   */
  async addSeedKeys(tx: Tx, merchantId: string, apiKeys: string[]): Promise<boolean> {
    let added = false;
    for (const plaintext of apiKeys) {
      const key = await this.merchants.findKeyByHash(tx, hashApiKey(plaintext));
      if (key && key.merchantId !== merchantId) {
        throw new ApiError('CONFLICT', { message: 'This API key belongs to another merchant.' });
      }
      if (!key) {
        await this.merchants.insertKey(tx, {
          id: randomUUID(),
          merchantId,
          ...storedForm(plaintext),
        });
        added = true;
      }
    }
    return added;
  }

  /** The merchant's keys, revoked ones included, oldest first; NOT_FOUND for an unknown merchant. */
  async listKeys(
    merchantId: string,
    page: PageRequest,
  ): Promise<{ payload: ApiKeyViewDto[]; total: number }> {
    const listed = await this.merchants.listKeys(merchantId, page);
    if (!listed) throw merchantNotFound(merchantId);
    return { payload: listed.rows.map(toKeyView), total: listed.total };
  }

  /** Whether this plaintext key of the merchant works, was revoked, or is not stored for it. */
  async keyState(merchantId: string, plaintext: string): Promise<KeyState> {
    const key = await this.transactions.run((tx) =>
      this.merchants.findKeyByHash(tx, hashApiKey(plaintext)),
    );
    if (!key || key.merchantId !== merchantId) return 'unknown';
    return key.revokedAt === null ? 'active' : 'revoked';
  }

  /** True while the demo merchant still has a key that works. */
  demoKeyActive(): Promise<boolean> {
    return this.merchants.hasActiveKey(DEMO_MERCHANT_ID);
  }

  /** The published sandbox key, while it is active on some merchant: its key id and merchant. */
  publishedKey(): Promise<ResolvedKey | undefined> {
    return this.merchants.findActiveKey(hashApiKey(SANDBOX_API_KEY));
  }
}

/** What is stored of a new key: its hash and its last characters, never the key. */
function storedForm(plaintext: string): Pick<ApiKeyRecord, 'keyHash' | 'last4' | 'revokedAt'> {
  return {
    keyHash: hashApiKey(plaintext),
    last4: plaintext.slice(-SHOWN_KEY_CHARACTERS),
    revokedAt: null,
  };
}

/** A key as the operator sees it; fields it does not have are left out, not null. */
function toKeyView(key: ApiKeyRecord): ApiKeyViewDto {
  return {
    keyId: key.id,
    createdAt: key.createdAt.toISOString(),
    ...(key.revokedAt === null ? {} : { revokedAt: key.revokedAt }),
    ...(key.last4 === null ? {} : { last4: key.last4 }),
  };
}
