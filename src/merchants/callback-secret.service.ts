import { Injectable } from '@nestjs/common';
import { ChangeFeed } from '../database/change-feed.js';
import { ChangeFeedCache } from '../database/change-feed-cache.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { REDACTED } from '../audit/changes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../access/operator-call.js';
import {
  CallbackSecretBox,
  SECRET_OVERLAP_MS,
  generateCallbackSecret,
} from './callback-secrets.js';
import { CallbackSecretDto } from './dto/merchant.dto.js';
import { MerchantRepository, StoredCallbackSecrets } from './merchant.repository.js';
import { requireMerchant } from './merchant-id.js';

/**
 * How long a merchant's stored callback secrets are reused for signing without reading them
 * again. A rotation drops the copy at once on this instance, and on the others when the change
 * feed announces it; this is the safety net behind it (the seed script on SQLite, which no
 * feed carries).
 */
const SIGNING_SECRETS_TTL_MS = 5_000;

/** The change-feed kind that says a merchant's callback secret (its id in the payload) changed. */
const CALLBACK_SECRET_REPLACED = 'callback-secret-replaced';

/** The merchants' callback secrets: issued, rotated, and read to sign callbacks. */
@Injectable()
export class CallbackSecretService {
  /**
   * Stored (encrypted) callback secrets by merchant, kept briefly: a burst of callbacks to one
   * merchant reads them once, not once per attempt (each read is a serialised transaction on
   * SQLite).
   */
  private readonly copies: ChangeFeedCache<StoredCallbackSecrets>;

  constructor(
    private readonly merchants: MerchantRepository,
    private readonly transactions: Transactions,
    private readonly secretBox: CallbackSecretBox,
    private readonly audit: AuditTrail,
    private readonly changes: ChangeFeed,
  ) {
    this.copies = new ChangeFeedCache(
      changes,
      CALLBACK_SECRET_REPLACED,
      { maxBytes: 1024 * 1024, ttlMs: SIGNING_SECRETS_TTL_MS },
      // Read for a callback attempt: ahead of waiting writes, like the dispatcher's bookkeeping.
      (merchantId) =>
        transactions.run((tx) => merchants.findCallbackSecrets(tx, merchantId), { ahead: true }),
    );
  }

  /**
   * The merchant whose stored callback secret the configured key cannot decrypt (the first by id
   * that has one): the database was written under another CALLBACK_SECRET_KEY. Undefined when
   * the key reads it, or nothing is stored yet.
   */
  async unreadableSecret(): Promise<string | undefined> {
    const stored = await this.transactions.run((tx) => this.merchants.findAnyCallbackSecret(tx));
    if (!stored) return undefined;
    try {
      this.secretBox.decrypt(stored.secret);
      return undefined;
    } catch {
      return stored.merchantId;
    }
  }

  /** Gives a new merchant its first secret (generated unless given), inside the caller's transaction. */
  async issue(tx: Tx, merchantId: string, secret = generateCallbackSecret()): Promise<string> {
    await this.merchants.setCallbackSecrets(tx, merchantId, {
      current: this.secretBox.encrypt(secret),
      previous: null,
      rotatedAt: null,
    });
    return secret;
  }

  /**
   * Replaces the merchant's callback secret, returned this once. The previous one keeps signing
   * beside it for SECRET_OVERLAP_MS, so receivers can switch without missing a callback.
   */
  async rotate(merchantId: string, call?: OperatorCall): Promise<CallbackSecretDto> {
    const callbackSecret = generateCallbackSecret();
    await this.transactions.run(async (tx) => {
      await this.replace(tx, merchantId, callbackSecret);
      await this.audit.record(tx, call, {
        target: merchantId,
        changes: { callbackSecret: { old: REDACTED, new: REDACTED } },
      });
    });
    this.copies.forget(merchantId); // also a copy read while the rotation committed
    return { callbackSecret };
  }

  /**
   * Seed files: a secret given by the file replaces a different one, with the usual overlap.
   * Returns whether it did.
   */
  async replaceFromSeed(tx: Tx, merchantId: string, secret: string): Promise<boolean> {
    const stored = await this.merchants.findCallbackSecrets(tx, merchantId);
    const current = stored?.current ? this.secretBox.decrypt(stored.current) : undefined;
    if (secret === current) return false;
    await this.replace(tx, merchantId, secret);
    return true;
  }

  /**
   * The secrets a callback to the merchant is signed with now: the current one, and the previous
   * one for a day after a rotation. Empty when the merchant has none.
   */
  async signingSecrets(merchantId: string, now = Date.now()): Promise<string[]> {
    const stored = await this.copies.resolve(merchantId);
    if (!stored?.current) return [];
    const secrets = [this.secretBox.decrypt(stored.current)];
    const overlapping = stored.rotatedAt !== null && now - stored.rotatedAt < SECRET_OVERLAP_MS;
    if (stored.previous && overlapping) secrets.push(this.secretBox.decrypt(stored.previous));
    return secrets;
  }

  private async replace(tx: Tx, merchantId: string, secret: string): Promise<void> {
    this.copies.forget(merchantId);
    await requireMerchant(this.merchants, tx, merchantId);
    const stored = await this.merchants.findCallbackSecrets(tx, merchantId);
    await this.merchants.setCallbackSecrets(tx, merchantId, {
      current: this.secretBox.encrypt(secret),
      previous: stored?.current ?? null,
      rotatedAt: Date.now(),
    });
    await this.changes.announce(tx, CALLBACK_SECRET_REPLACED, merchantId);
  }
}
