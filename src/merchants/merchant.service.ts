import { boundedCache } from '../common/cache/bounded-cache.js';
import { Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import type { MaybePromise } from '../common/maybe-async.js';
import { ChangeFeed, SINGLE_PROCESS_FEED } from '../database/change-feed.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { generateApiKey, hashApiKey } from './api-key.js';
import {
  CallbackSecretBox,
  SECRET_OVERLAP_MS,
  generateCallbackSecret,
} from './callback-secrets.js';
import {
  ApiKeyViewDto,
  CallbackSecretDto,
  CreateMerchantDto,
  CreatedApiKeyDto,
  CreatedMerchantDto,
  ListedMerchantDto,
} from './dto/merchant.dto.js';
import {
  ApiKeyRecord,
  MerchantRepository,
  PageRequest,
  ResolvedKey,
  StoredCallbackSecrets,
} from './merchant.repository.js';

/** The merchant whose keys the sandbox quick start publishes; production refuses it. */
export const DEMO_MERCHANT_ID = 'demo';

/** What became of a plaintext key of a merchant: working, revoked, or never stored for it. */
export type KeyState = 'active' | 'revoked' | 'unknown';

/** How many characters of a key the operator may see: enough to tell keys apart, no more. */
const SHOWN_KEY_CHARACTERS = 4;

/** Memory the resolved keys may take (an entry is about 400 bytes: some 40,000 keys). */
const API_KEY_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * How long a resolved key is trusted without asking the database again. Revocations reach every
 * instance through the change feed at once; this is only the safety net behind it.
 */
const KEY_CACHE_TTL_MS = 10_000;

/**
 * How long a merchant's stored callback secrets are reused for signing without reading them
 * again. A rotation drops the copy at once on this instance, and on the others when the change
 * feed announces it; this is the safety net behind it (the seed script on SQLite, which no
 * feed carries).
 */
const SIGNING_SECRETS_TTL_MS = 5_000;

/** The change-feed kind that says a merchant's callback secret (its id in the payload) changed. */
const CALLBACK_SECRET_REPLACED = 'callback-secret-replaced';

/** The change-feed kind that says an API key (its hash in the payload) was revoked. */
const KEY_REVOKED = 'api-key-revoked';

/** Merchants and their API keys. */
@Injectable()
export class MerchantService {
  /** Resolved keys by hash: synchronous, it sits on every request's path. */
  private readonly resolvedKeys = boundedCache<ResolvedKey>({
    maxBytes: API_KEY_CACHE_BYTES,
    ttlMs: KEY_CACHE_TTL_MS,
  });

  /**
   * Stored (encrypted) callback secrets by merchant, kept briefly: a burst of callbacks to one
   * merchant reads them once, not once per attempt (each read is a serialised transaction on
   * SQLite).
   */
  private readonly signingSecretCopies = boundedCache<StoredCallbackSecrets>({
    maxBytes: 1024 * 1024,
    ttlMs: SIGNING_SECRETS_TTL_MS,
  });

  /** Moves on with every revocation heard of: a lookup that began before one is not kept. */
  private generation = 0;

  constructor(
    private readonly merchants: MerchantRepository,
    private readonly transactions: Transactions,
    private readonly secretBox: CallbackSecretBox,
    @Optional() private readonly changes: ChangeFeed = SINGLE_PROCESS_FEED,
  ) {
    changes.subscribe(KEY_REVOKED, {
      onChange: (hash) => this.forget(hash),
      onGap: () => this.forget(),
    });
    changes.subscribe(CALLBACK_SECRET_REPLACED, {
      onChange: (merchantId) => this.signingSecretCopies.delete(merchantId),
      onGap: () => this.signingSecretCopies.clear(),
    });
  }

  /**
   * The key's merchant, or undefined for an unknown or revoked key. Known keys are kept by hash,
   * so a valid key costs no database round trip. A revocation, on this instance or another,
   * drops the entry; while revocations could be missed (the change feed is down), nothing kept is
   * trusted and every lookup asks the database. A kept key is answered at once, without a promise.
   */
  resolve(plaintext: string): MaybePromise<ResolvedKey | undefined> {
    const hash = hashApiKey(plaintext);
    const reliable = this.changes.reliable;
    if (reliable) {
      const cached = this.resolvedKeys.get(hash);
      if (cached) return cached;
    }
    return this.lookUp(hash, reliable);
  }

  private async lookUp(hash: string, reliable: boolean): Promise<ResolvedKey | undefined> {
    const generation = this.generation;
    const found = await this.merchants.findActiveKey(hash);
    if (!found) return undefined;
    const resolved = { keyId: found.keyId, merchantId: found.merchantId };
    if (reliable && generation === this.generation && this.changes.reliable) {
      this.resolvedKeys.set(hash, resolved);
    }
    return resolved;
  }

  /** Drops a kept key (or all of them) and makes lookups already under way not keep theirs. */
  private forget(hash?: string): void {
    this.generation++;
    if (hash === undefined) this.resolvedKeys.clear();
    else this.resolvedKeys.delete(hash);
  }

  /** Creates a merchant with a new callback secret, returned this once. */
  async createMerchant(input: CreateMerchantDto): Promise<CreatedMerchantDto> {
    const callbackSecret = generateCallbackSecret();
    return this.transactions.run(async (tx) => {
      if (!(await this.merchants.insert(tx, { id: input.id, name: input.name }))) {
        throw new ApiError('CONFLICT', {
          message: `Merchant ${input.id} already exists.`,
          field: 'id',
        });
      }
      await this.merchants.setCallbackSecrets(tx, input.id, {
        current: this.secretBox.encrypt(callbackSecret),
        previous: null,
        rotatedAt: null,
      });
      return { id: input.id, name: input.name, callbackSecret };
    });
  }

  /**
   * Replaces the merchant's callback secret, returned this once. The previous one keeps signing
   * beside it for SECRET_OVERLAP_MS, so receivers can switch without missing a callback.
   */
  async rotateCallbackSecret(merchantId: string): Promise<CallbackSecretDto> {
    const callbackSecret = generateCallbackSecret();
    await this.transactions.run((tx) => this.replaceCallbackSecret(tx, merchantId, callbackSecret));
    this.signingSecretCopies.delete(merchantId); // also a copy read while the rotation committed
    return { callbackSecret };
  }

  /**
   * The secrets a callback to the merchant is signed with now: the current one, and the previous
   * one for a day after a rotation. Empty when the merchant has none.
   */
  async signingSecrets(merchantId: string, now = Date.now()): Promise<string[]> {
    const reliable = this.changes.reliable;
    let stored = reliable ? this.signingSecretCopies.get(merchantId) : undefined;
    if (!stored) {
      // Read for a callback attempt: ahead of waiting writes, like the dispatcher's bookkeeping.
      stored = await this.transactions.run(
        (tx) => this.merchants.findCallbackSecrets(tx, merchantId),
        { ahead: true },
      );
      if (stored && reliable && this.changes.reliable) {
        this.signingSecretCopies.set(merchantId, stored);
      }
    }
    if (!stored?.current) return [];
    const secrets = [this.secretBox.decrypt(stored.current)];
    const overlapping = stored.rotatedAt !== null && now - stored.rotatedAt < SECRET_OVERLAP_MS;
    if (stored.previous && overlapping) secrets.push(this.secretBox.decrypt(stored.previous));
    return secrets;
  }

  private async replaceCallbackSecret(tx: Tx, merchantId: string, secret: string): Promise<void> {
    this.signingSecretCopies.delete(merchantId);
    const stored = await this.merchants.findCallbackSecrets(tx, merchantId);
    if (!stored) {
      throw new ApiError('NOT_FOUND', {
        message: `Merchant ${merchantId} not found.`,
        field: 'merchantId',
      });
    }
    await this.merchants.setCallbackSecrets(tx, merchantId, {
      current: this.secretBox.encrypt(secret),
      previous: stored.current,
      rotatedAt: Date.now(),
    });
    await this.changes.announce(tx, CALLBACK_SECRET_REPLACED, merchantId);
  }

  async createKey(merchantId: string): Promise<CreatedApiKeyDto> {
    return this.transactions.run(async (tx) => {
      await this.requireMerchant(tx, merchantId);
      const apiKey = generateApiKey();
      const keyId = randomUUID();
      await this.merchants.insertKey(tx, { id: keyId, merchantId, ...storedForm(apiKey) });
      return { keyId, apiKey };
    });
  }

  /** Revokes a key; the next request with it is refused. Revoking twice is a no-op. */
  async revokeKey(merchantId: string, keyId: string): Promise<void> {
    const hash = await this.transactions.run(async (tx) => {
      await this.requireMerchant(tx, merchantId);
      const key = await this.merchants.findKey(tx, merchantId, keyId);
      if (!key) {
        throw new ApiError('NOT_FOUND', { message: `API key ${keyId} not found.`, field: 'keyId' });
      }
      if (key.revokedAt === null) {
        await this.merchants.revokeKey(tx, keyId, new Date().toISOString());
        await this.changes.announce(tx, KEY_REVOKED, key.keyHash);
      }
      return key.keyHash;
    });
    // This instance refuses the key at once; the others when the announcement reaches them.
    this.forget(hash);
  }

  /**
   * Seed files: creates or renames the merchant and adds the plaintext keys it lacks, inside
   * the caller's transaction. Returns whether anything changed.
   */
  async upsertFromSeed(
    tx: Tx,
    merchant: CreateMerchantDto,
    apiKeys: string[],
    callbackSecret?: string,
  ): Promise<boolean> {
    let changed = false;
    const existing = await this.merchants.find(tx, merchant.id);
    if (!existing) {
      await this.merchants.insert(tx, { id: merchant.id, name: merchant.name });
      await this.merchants.setCallbackSecrets(tx, merchant.id, {
        current: this.secretBox.encrypt(callbackSecret ?? generateCallbackSecret()),
        previous: null,
        rotatedAt: null,
      });
      changed = true;
    } else {
      if (existing.name !== merchant.name) {
        await this.merchants.rename(tx, merchant.id, merchant.name);
        changed = true;
      }
      // A secret given by the file replaces a different one, with the usual overlap.
      const stored = await this.merchants.findCallbackSecrets(tx, merchant.id);
      const current = stored?.current ? this.secretBox.decrypt(stored.current) : undefined;
      if (callbackSecret !== undefined && callbackSecret !== current) {
        await this.replaceCallbackSecret(tx, merchant.id, callbackSecret);
        changed = true;
      }
    }
    for (const plaintext of apiKeys) {
      const keyHash = hashApiKey(plaintext);
      const key = await this.merchants.findKeyByHash(tx, keyHash);
      if (key && key.merchantId !== merchant.id) {
        throw new ApiError('CONFLICT', { message: 'This API key belongs to another merchant.' });
      }
      if (!key) {
        await this.merchants.insertKey(tx, {
          id: randomUUID(),
          merchantId: merchant.id,
          ...storedForm(plaintext),
        });
        changed = true;
      }
    }
    return changed;
  }

  /** Every merchant, ordered by id, a page at a time. */
  async listMerchants(page: PageRequest): Promise<{ payload: ListedMerchantDto[]; total: number }> {
    const { rows, total } = await this.transactions.run((tx) => this.merchants.list(tx, page));
    return {
      payload: rows.map(({ id, name, createdAt }) => ({
        id,
        name,
        createdAt: createdAt.toISOString(),
      })),
      total,
    };
  }

  /** The merchant's keys, revoked ones included, oldest first; NOT_FOUND for an unknown merchant. */
  async listKeys(
    merchantId: string,
    page: PageRequest,
  ): Promise<{ payload: ApiKeyViewDto[]; total: number }> {
    const { rows, total } = await this.transactions.run(async (tx) => {
      await this.requireMerchant(tx, merchantId);
      return this.merchants.listKeys(tx, merchantId, page);
    });
    return { payload: rows.map(toKeyView), total };
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

  /** Throws NOT_FOUND for an unknown merchant (an operator resource). */
  async requireMerchant(tx: Tx, merchantId: string): Promise<void> {
    if (!(await this.merchants.find(tx, merchantId))) {
      throw new ApiError('NOT_FOUND', {
        message: `Merchant ${merchantId} not found.`,
        field: 'merchantId',
      });
    }
  }

  /** True when the merchant exists, inside the caller's transaction. */
  async exists(tx: Tx, merchantId: string): Promise<boolean> {
    return (await this.merchants.find(tx, merchantId)) !== undefined;
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
