import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, Not } from 'typeorm';
import { EntityColumns } from '../database/entity-columns.js';
import { type Page, type PageRequest, PreparedReads } from '../database/prepared-reads.js';
import { execute } from '../database/sql.js';
import type { Tx } from '../database/transactions.js';
import { insertUnlessDuplicate, managerOf } from '../database/typeorm-transactions.js';
import { ApiKey, Merchant } from './merchant.entity.js';
import {
  ApiKeyRecord,
  ListedMerchant,
  MerchantRecord,
  MerchantRepository,
  ResolvedKey,
  StoredCallbackSecrets,
} from './merchant.repository.js';

@Injectable()
export class TypeOrmMerchantRepository extends MerchantRepository {
  /** The working key of a hash: on every merchant request, a fixed statement. */
  private readonly activeKeySql: string;
  private readonly anyActiveKeySql: string;
  private readonly findSql: string;

  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() dataSource: DataSource,
  ) {
    super();
    const keys = new EntityColumns(dataSource, ApiKey);
    const working = `${keys.name('revokedAt')} IS NULL`;
    this.activeKeySql =
      `SELECT ${keys.name('id')} AS "keyId", ${keys.selectList(['merchantId'])} ` +
      `FROM ${keys.table} WHERE ${keys.name('keyHash')} = ? AND ${working}`;
    this.anyActiveKeySql =
      `SELECT 1 AS found FROM ${keys.table} ` +
      `WHERE ${keys.name('merchantId')} = ? AND ${working} LIMIT 1`;
    const merchants = new EntityColumns(dataSource, Merchant);
    this.findSql = `${merchants.select(['id', 'name'])} WHERE ${merchants.name('id')} = ?`;
  }

  findActiveKey(keyHash: string): Promise<ResolvedKey | undefined> {
    return this.reads.first<ResolvedKey>(this.activeKeySql, [keyHash]);
  }

  async hasActiveKey(merchantId: string): Promise<boolean> {
    const row = await this.reads.first(this.anyActiveKeySql, [merchantId]);
    return row !== undefined;
  }

  async find(tx: Tx, id: string): Promise<MerchantRecord | undefined> {
    const { rows } = await execute<MerchantRecord>(tx, this.findSql, [id]);
    return rows[0];
  }

  list(page: PageRequest): Promise<Page<ListedMerchant>> {
    const read = this.reads.of(Merchant, 'm', ['id', 'name', 'createdAt']);
    read.query.orderBy('m.id');
    return read.page(page);
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

  async findAnyCallbackSecret(tx: Tx): Promise<{ merchantId: string; secret: string } | undefined> {
    const row = await managerOf(tx).findOne(Merchant, {
      where: { callbackSecret: Not(IsNull()) },
      select: { id: true, callbackSecret: true },
      order: { id: 'ASC' },
    });
    return row?.callbackSecret ? { merchantId: row.id, secret: row.callbackSecret } : undefined;
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

  async listKeys(merchantId: string, page: PageRequest): Promise<Page<ApiKeyRecord> | undefined> {
    const keys = this.reads.of(ApiKey, 'k');
    keys.query
      .where('k.merchantId = :merchantId', { merchantId })
      .orderBy('k.createdAt')
      .addOrderBy('k.id');
    const listed = await keys.page(page);
    if (listed.total > 0) return listed;
    const merchant = this.reads.of(Merchant, 'm', ['id']);
    merchant.query.where('m.id = :merchantId', { merchantId });
    return (await merchant.rows()).length > 0 ? listed : undefined;
  }

  async insertKey(tx: Tx, key: Omit<ApiKeyRecord, 'createdAt'>): Promise<void> {
    await managerOf(tx).insert(ApiKey, key);
  }

  async revokeKey(tx: Tx, keyId: string, revokedAt: string): Promise<void> {
    await managerOf(tx).update(ApiKey, { id: keyId }, { revokedAt });
  }
}
