import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/errors/api-error.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { REDACTED } from '../audit/changes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../access/operator-call.js';
import { ApiKeyService } from './api-key.service.js';
import { CallbackSecretService } from './callback-secret.service.js';
import {
  CreateMerchantDto,
  CreatedMerchantDto,
  ListedMerchantDto,
  MerchantDto,
  UpdateMerchantDto,
} from './dto/merchant.dto.js';
import type { PageRequest } from '../database/prepared-reads.js';
import { MerchantRepository } from './merchant.repository.js';

/** Merchants: created with their first callback secret, listed, loaded from seed files. */
@Injectable()
export class MerchantService {
  constructor(
    private readonly merchants: MerchantRepository,
    private readonly transactions: Transactions,
    private readonly secrets: CallbackSecretService,
    private readonly keys: ApiKeyService,
    private readonly audit: AuditTrail,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Creates a merchant with a new callback secret, returned this once. */
  async createMerchant(input: CreateMerchantDto, call?: OperatorCall): Promise<CreatedMerchantDto> {
    const checkoutOrigins = this.checkedOrigins(input.checkoutOrigins ?? []);
    return this.transactions.run(async (tx) => {
      if (!(await this.merchants.insert(tx, { id: input.id, name: input.name }))) {
        throw new ApiError('CONFLICT', {
          message: `Merchant ${input.id} already exists.`,
          field: 'id',
        });
      }
      if (checkoutOrigins.length > 0) {
        await this.merchants.setCheckoutOrigins(tx, input.id, checkoutOrigins);
      }
      const callbackSecret = await this.secrets.issue(tx, input.id);
      await this.audit.record(tx, call, {
        target: input.id,
        changes: {
          id: { old: null, new: input.id },
          name: { old: null, new: input.name },
          ...(checkoutOrigins.length > 0
            ? { checkoutOrigins: { old: null, new: checkoutOrigins } }
            : {}),
          callbackSecret: { old: null, new: REDACTED },
        },
      });
      return { id: input.id, name: input.name, checkoutOrigins, callbackSecret };
    });
  }

  /** Renames a merchant or replaces its checkout origins; only the fields given change. */
  async updateMerchant(
    id: string,
    input: UpdateMerchantDto,
    call?: OperatorCall,
  ): Promise<MerchantDto> {
    const origins = input.checkoutOrigins && this.checkedOrigins(input.checkoutOrigins);
    return this.transactions.run(async (tx) => {
      const existing = await this.merchants.find(tx, id);
      if (!existing) {
        throw new ApiError('NOT_FOUND', { message: `Merchant ${id} not found.`, field: 'id' });
      }
      const before = (await this.merchants.findCheckoutOrigins(tx, id)) ?? [];
      const after = { name: input.name ?? existing.name, checkoutOrigins: origins ?? before };
      const changes: Record<string, { old: unknown; new: unknown }> = {};
      if (after.name !== existing.name) {
        await this.merchants.rename(tx, id, after.name);
        changes.name = { old: existing.name, new: after.name };
      }
      if (JSON.stringify(after.checkoutOrigins) !== JSON.stringify(before)) {
        await this.merchants.setCheckoutOrigins(tx, id, after.checkoutOrigins);
        changes.checkoutOrigins = { old: before, new: after.checkoutOrigins };
      }
      if (Object.keys(changes).length > 0) {
        await this.audit.record(tx, call, { target: id, changes });
      }
      return { id, ...after };
    });
  }

  /** The merchant's name and checkout origins, inside the caller's transaction. */
  async checkoutProfile(
    tx: Tx,
    id: string,
  ): Promise<{ name: string; checkoutOrigins: string[] } | undefined> {
    const merchant = await this.merchants.find(tx, id);
    if (!merchant) return undefined;
    return {
      name: merchant.name,
      checkoutOrigins: (await this.merchants.findCheckoutOrigins(tx, id)) ?? [],
    };
  }

  /** Checkout origins without repeats; `https` only in production. */
  private checkedOrigins(origins: string[]): string[] {
    if (this.config.nodeEnv === 'production' && origins.some((o) => !o.startsWith('https:'))) {
      throw ApiError.invalidParameters([
        { field: 'checkoutOrigins', message: 'must hold https origins only in production' },
      ]);
    }
    return [...new Set(origins)];
  }

  /**
   * Seed files: creates or renames the merchant, replaces its callback secret when the file gives
   * another one, and adds the plaintext keys it lacks, inside the caller's transaction. Returns
   * whether anything changed.
   */
  async upsertFromSeed(
    tx: Tx,
    merchant: CreateMerchantDto,
    apiKeys: string[],
    callbackSecret?: string,
  ): Promise<boolean> {
    let changed = false;
    const existing = await this.merchants.find(tx, merchant.id);
    if (merchant.checkoutOrigins !== undefined) {
      const origins = [...new Set(merchant.checkoutOrigins)];
      const before = existing ? await this.merchants.findCheckoutOrigins(tx, merchant.id) : [];
      if (!existing) await this.merchants.insert(tx, { id: merchant.id, name: merchant.name });
      if (JSON.stringify(before) !== JSON.stringify(origins)) {
        await this.merchants.setCheckoutOrigins(tx, merchant.id, origins);
        changed = true;
      }
      if (!existing) {
        await this.secrets.issue(tx, merchant.id, callbackSecret);
        return (await this.keys.addSeedKeys(tx, merchant.id, apiKeys)) || true;
      }
    }
    if (!existing) {
      await this.merchants.insert(tx, { id: merchant.id, name: merchant.name });
      await this.secrets.issue(tx, merchant.id, callbackSecret);
      changed = true;
    } else {
      if (existing.name !== merchant.name) {
        await this.merchants.rename(tx, merchant.id, merchant.name);
        changed = true;
      }
      if (callbackSecret !== undefined) {
        changed = (await this.secrets.replaceFromSeed(tx, merchant.id, callbackSecret)) || changed;
      }
    }
    return (await this.keys.addSeedKeys(tx, merchant.id, apiKeys)) || changed;
  }

  /** Every merchant, ordered by id, a page at a time. */
  async listMerchants(page: PageRequest): Promise<{ payload: ListedMerchantDto[]; total: number }> {
    const { rows, total } = await this.merchants.list(page);
    return {
      payload: rows.map(({ id, name, createdAt }) => ({
        id,
        name,
        createdAt: createdAt.toISOString(),
      })),
      total,
    };
  }

  /** True when the merchant exists, inside the caller's transaction. */
  async exists(tx: Tx, merchantId: string): Promise<boolean> {
    return (await this.merchants.find(tx, merchantId)) !== undefined;
  }
}
