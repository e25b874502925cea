import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { claimLockClause } from '../database/dialect.js';
import { execute } from '../database/sql.js';
import type { Tx } from '../database/transactions.js';
import { insertRows, managerOf } from '../database/typeorm-transactions.js';
import { Checkout, CheckoutToken } from './checkout.entity.js';
import {
  CheckoutRecord,
  CheckoutRepository,
  CheckoutRequest,
  TokenCheckout,
} from './checkout.repository.js';

/**
 * A new checkout, unless its key is taken: the conflict waits for the transaction that took it
 * (PostgreSQL), so identical init-iframe requests racing on several instances queue behind the
 * first instead of failing on the key.
 */
const INSERT_CHECKOUT =
  'INSERT INTO checkout (validation_key, merchant_id, request, expires_at, state, chosen_pair, ' +
  'page_nonce_hash, personal_data_erased_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ' +
  'ON CONFLICT (validation_key) DO NOTHING';

@Injectable()
export class TypeOrmCheckoutRepository extends CheckoutRepository {
  private readonly lock: string;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
    this.lock = claimLockClause(dataSource);
  }

  async findIn(tx: Tx, validationKey: string): Promise<CheckoutRecord | undefined> {
    const row = await managerOf(tx).findOneBy(Checkout, { validationKey });
    return row ? toRecord(row) : undefined;
  }

  async insert(tx: Tx, checkout: CheckoutRecord): Promise<boolean> {
    const { affected } = await execute(tx, INSERT_CHECKOUT, [
      checkout.validationKey,
      checkout.merchantId,
      JSON.stringify(checkout.request),
      checkout.expiresAt,
      checkout.state,
      checkout.chosenPair,
      checkout.pageNonceHash,
      checkout.personalDataErasedAt,
    ]);
    return affected === 1;
  }

  async addToken(
    tx: Tx,
    tokenHash: string,
    validationKey: string,
    expiresAt: number,
  ): Promise<void> {
    const manager = managerOf(tx);
    await insertRows(tx, CheckoutToken, { tokenHash, validationKey, expiresAt });
    await manager
      .createQueryBuilder()
      .update(Checkout)
      .set({ expiresAt })
      .where('validation_key = :validationKey AND expires_at < :expiresAt', {
        validationKey,
        expiresAt,
      })
      .execute();
  }

  findByToken(tokenHash: string): Promise<TokenCheckout | undefined> {
    return this.byToken(this.dataSource.manager, tokenHash);
  }

  findByTokenIn(tx: Tx, tokenHash: string): Promise<TokenCheckout | undefined> {
    return this.byToken(managerOf(tx), tokenHash);
  }

  private async byToken(
    manager: DataSource['manager'],
    tokenHash: string,
  ): Promise<TokenCheckout | undefined> {
    const token = await manager.findOneBy(CheckoutToken, { tokenHash });
    if (!token) return undefined;
    const row = await manager.findOneBy(Checkout, { validationKey: token.validationKey });
    return row ? { checkout: toRecord(row), tokenExpiresAt: token.expiresAt } : undefined;
  }

  async replaceNonce(
    tx: Tx,
    validationKey: string,
    expected: string | null,
    next: string,
  ): Promise<boolean> {
    const update = managerOf(tx)
      .createQueryBuilder()
      .update(Checkout)
      .set({ pageNonceHash: next })
      .where('validation_key = :validationKey', { validationKey });
    if (expected !== null) update.andWhere('page_nonce_hash = :expected', { expected });
    return (await update.execute()).affected === 1;
  }

  async setChosenPair(tx: Tx, validationKey: string, pair: string): Promise<void> {
    await managerOf(tx).update(Checkout, { validationKey }, { chosenPair: pair });
  }

  async setState(tx: Tx, validationKey: string, state: 'open' | 'ended'): Promise<void> {
    await managerOf(tx).update(Checkout, { validationKey }, { state });
  }

  dueForExpiry(tx: Tx, now: number, limit: number): Promise<string[]> {
    return this.claim(tx, "c.state = 'open' AND c.expires_at <= :at", now, limit);
  }

  dueForErasure(tx: Tx, before: number, limit: number): Promise<string[]> {
    return this.claim(
      tx,
      'c.personal_data_erased_at IS NULL AND c.expires_at <= :at',
      before,
      limit,
    );
  }

  private async claim(tx: Tx, where: string, at: number, limit: number): Promise<string[]> {
    const manager = managerOf(tx);
    const due = manager
      .createQueryBuilder(Checkout, 'c')
      .select('c.validation_key', 'validationKey')
      .where(where, { at })
      .orderBy('c.expires_at', 'ASC')
      .limit(limit);
    const [sql, parameters] = due.getQueryAndParameters();
    const rows = (await manager.query(sql + this.lock, parameters)) as { validationKey: string }[];
    return rows.map((row) => row.validationKey);
  }

  async storeErasure(
    tx: Tx,
    validationKey: string,
    request: CheckoutRequest,
    erasedAt: number,
  ): Promise<void> {
    await managerOf(tx).update(
      Checkout,
      { validationKey },
      { request: JSON.stringify(request), personalDataErasedAt: erasedAt },
    );
  }
}

function toRecord(row: Checkout): CheckoutRecord {
  return {
    validationKey: row.validationKey,
    merchantId: row.merchantId,
    request: JSON.parse(row.request) as CheckoutRequest,
    expiresAt: row.expiresAt,
    state: row.state,
    chosenPair: row.chosenPair,
    pageNonceHash: row.pageNonceHash,
    personalDataErasedAt: row.personalDataErasedAt,
  };
}
