import { Injectable } from '@nestjs/common';
import { IsNull, Not } from 'typeorm';
import { PreparedReads } from '../database/prepared-reads.js';
import { execute } from '../database/sql.js';
import type { Tx } from '../database/transactions.js';
import { insertUnlessDuplicate, managerOf } from '../database/typeorm-transactions.js';
import { ApiKey, Merchant } from './merchant.entity.js';
import {
  ApiKeyRecord,
  ListedMerchant,
  MerchantRecord,
  MerchantRepository,
  Page,
  PageRequest,
  ResolvedKey,
  StoredCallbackSecrets,
} from './merchant.repository.js';

const ACTIVE_KEY_SQL =
  'SELECT id AS "keyId", merchant_id AS "merchantId" FROM api_key ' +
  'WHERE key_hash = ? AND revoked_at IS NULL';

const ANY_ACTIVE_KEY_SQL =
  'SELECT 1 AS found FROM api_key WHERE merchant_id = ? AND revoked_at IS NULL LIMIT 1';

@Injectable()
export class TypeOrmMerchantRepository extends MerchantRepository {
  constructor(private readonly reads: PreparedReads) {
    super();
  }

  findActiveKey(keyHash: string): Promise<ResolvedKey | undefined> {
    return this.reads.first<ResolvedKey>(ACTIVE_KEY_SQL, [keyHash]);
  }

  async hasActiveKey(merchantId: string): Promise<boolean> {
    const row = await this.reads.first(ANY_ACTIVE_KEY_SQL, [merchantId]);
    return row !== undefined;
  }

  async find(tx: Tx, id: string): Promise<MerchantRecord | undefined> {
    const { rows } = await execute<MerchantRecord>(
      tx,
      'SELECT id, name FROM merchant WHERE id = ?',
      [id],
    );
    return rows[0];
  }

  async list(tx: Tx, { page, size }: PageRequest): Promise<Page<ListedMerchant>> {
    const [rows, total] = await managerOf(tx).findAndCount(Merchant, {
      order: { id: 'ASC' },
      skip: page * size,
      take: size,
    });
    return { rows: rows.map(({ id, name, createdAt }) => ({ id, name, createdAt })), total };
  }

  async insert(tx: Tx, merchant: MerchantRecord): Promise<boolean> {
    return (await insertUnlessDuplicate(tx, Merchant, merchant)) !== undefined;
  }

  async rename(tx: Tx, id: string, name: string): Promise<void> {
    await managerOf(tx).update(Merchant, { id }, { name });
  }

  async findCheckoutOrigins(tx: Tx, id: string): Promise<string[] | undefined> {
    const row = await managerOf(tx).findOne(Merchant, {
      where: { id },
      select: { id: true, checkoutOrigins: true },
    });
    if (!row) return undefined;
    return row.checkoutOrigins ? (JSON.parse(row.checkoutOrigins) as string[]) : [];
  }

  async setCheckoutOrigins(tx: Tx, id: string, origins: string[]): Promise<void> {
    await managerOf(tx).update(
      Merchant,
      { id },
      { checkoutOrigins: origins.length > 0 ? JSON.stringify(origins) : null },
    );
  }

  async findAnyCallbackSecret(tx: Tx): Promise<{ merchantId: string; secret: string } | undefined> {
    const row = await managerOf(tx).findOne(Merchant, {
      where: { callbackSecret: Not(IsNull()) },
      select: { id: true, callbackSecret: true },
      order: { id: 'ASC' },
    });
    return row?.callbackSecret ? { merchantId: row.id, secret: row.callbackSecret } : undefined;
  }

  async findCallbackSecrets(tx: Tx, id: string): Promise<StoredCallbackSecrets | undefined> {
    const row = await managerOf(tx).findOne(Merchant, {
      where: { id },
      select: {
        id: true,
        callbackSecret: true,
        previousCallbackSecret: true,
        callbackSecretRotatedAt: true,
      },
    });
    return row
      ? {
          current: row.callbackSecret,
          previous: row.previousCallbackSecret,
          rotatedAt: row.callbackSecretRotatedAt,
        }
      : undefined;
  }

  async setCallbackSecrets(tx: Tx, id: string, secrets: StoredCallbackSecrets): Promise<void> {
    await managerOf(tx).update(
      Merchant,
      { id },
      {
        callbackSecret: secrets.current,
        previousCallbackSecret: secrets.previous,
        callbackSecretRotatedAt: secrets.rotatedAt,
      },
    );
  }

  async findKeyByHash(tx: Tx, keyHash: string): Promise<ApiKeyRecord | undefined> {
    return (await managerOf(tx).findOneBy(ApiKey, { keyHash })) ?? undefined;
  }

  async findKey(tx: Tx, merchantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    return (await managerOf(tx).findOneBy(ApiKey, { id: keyId, merchantId })) ?? undefined;
  }

  async listKeys(
    tx: Tx,
    merchantId: string,
    { page, size }: PageRequest,
  ): Promise<Page<ApiKeyRecord>> {
    const [rows, total] = await managerOf(tx).findAndCount(ApiKey, {
      where: { merchantId },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page * size,
      take: size,
    });
    return { rows, total };
  }

  async insertKey(tx: Tx, key: Omit<ApiKeyRecord, 'createdAt'>): Promise<void> {
    await managerOf(tx).insert(ApiKey, key);
  }

  async revokeKey(tx: Tx, keyId: string, revokedAt: string): Promise<void> {
    await managerOf(tx).update(ApiKey, { id: keyId }, { revokedAt });
  }
}
