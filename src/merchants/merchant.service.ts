import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { REDACTED } from '../audit/changes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../http/caller.js';
import { ApiKeyService } from './api-key.service.js';
import { CallbackSecretService } from './callback-secret.service.js';
import { CreateMerchantDto, CreatedMerchantDto, ListedMerchantDto } from './dto/merchant.dto.js';
import { MerchantRepository, PageRequest } from './merchant.repository.js';

/** Merchants: created with their first callback secret, listed, loaded from seed files. */
@Injectable()
export class MerchantService {
  constructor(
    private readonly merchants: MerchantRepository,
    private readonly transactions: Transactions,
    private readonly secrets: CallbackSecretService,
    private readonly keys: ApiKeyService,
    private readonly audit: AuditTrail,
  ) {}

  /** Creates a merchant with a new callback secret, returned this once. */
  async createMerchant(input: CreateMerchantDto, call?: OperatorCall): Promise<CreatedMerchantDto> {
    return this.transactions.run(async (tx) => {
      if (!(await this.merchants.insert(tx, { id: input.id, name: input.name }))) {
        throw new ApiError('CONFLICT', {
          message: `Merchant ${input.id} already exists.`,
          field: 'id',
        });
      }
      const callbackSecret = await this.secrets.issue(tx, input.id);
      await this.audit.record(tx, call, {
        target: input.id,
        changes: {
          id: { old: null, new: input.id },
          name: { old: null, new: input.name },
          callbackSecret: { old: null, new: REDACTED },
        },
      });
      return { id: input.id, name: input.name, callbackSecret };
    });
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

  /** True when the merchant exists, inside the caller's transaction. */
  async exists(tx: Tx, merchantId: string): Promise<boolean> {
    return (await this.merchants.find(tx, merchantId)) !== undefined;
  }
}
