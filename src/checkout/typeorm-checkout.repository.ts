import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThan } from 'typeorm';
import { claimLockClause } from '../database/dialect.js';
import { EntityColumns } from '../database/entity-columns.js';
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

/** A CheckoutRecord's properties, in the order of the columns of its insert. */
const RECORD = [
  'validationKey',
  'merchantId',
  'request',
  'expiresAt',
  'state',
  'chosenPair',
  'pageNonceHash',
  'personalDataErasedAt',
] as const satisfies readonly (keyof Checkout & keyof CheckoutRecord)[];

@Injectable()
export class TypeOrmCheckoutRepository extends CheckoutRepository {
  private readonly lock: string;
  /**
   * A new checkout, unless its key is taken: the conflict waits for the transaction that took it
   * (PostgreSQL), so identical init-iframe requests racing on several instances queue behind the
   * first instead of failing on the key.
   */
  private readonly insertSql: string;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
    this.lock = claimLockClause(dataSource);
    const checkouts = new EntityColumns(dataSource, Checkout);
    const columns = RECORD.map((property) => checkouts.name(property));
    this.insertSql =
      `INSERT INTO ${checkouts.table} (${columns.join(', ')}) ` +
      `VALUES (${columns.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (${checkouts.name('validationKey')}) DO NOTHING`;
  }

  async findIn(tx: Tx, validationKey: string): Promise<CheckoutRecord | undefined> {
    const row = await managerOf(tx).findOneBy(Checkout, { validationKey });
    return row ? toRecord(row) : undefined;
  }

  async insert(tx: Tx, checkout: CheckoutRecord): Promise<boolean> {
    const stored = { ...checkout, request: JSON.stringify(checkout.request) };
    const { affected } = await execute(
      tx,
      this.insertSql,
      RECORD.map((property) => stored[property]),
    );
    return affected === 1;
  }

  async addToken(
    tx: Tx,
    tokenHash: string,
    validationKey: string,
    expiresAt: number,
  ): Promise<void> {
    await insertRows(tx, CheckoutToken, { tokenHash, validationKey, expiresAt });
    await managerOf(tx).update(
      Checkout,
      { validationKey, expiresAt: LessThan(expiresAt) },
      { expiresAt },
    );
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
    const current =
      expected === null ? { validationKey } : { validationKey, pageNonceHash: expected };
    const { affected } = await managerOf(tx).update(Checkout, current, { pageNonceHash: next });
    return affected === 1;
  }

  async setChosenPair(tx: Tx, validationKey: string, pair: string): Promise<void> {
    await managerOf(tx).update(Checkout, { validationKey }, { chosenPair: pair });
  }

  async setState(tx: Tx, validationKey: string, state: 'open' | 'ended'): Promise<void> {
    await managerOf(tx).update(Checkout, { validationKey }, { state });
  }

  async postpone(tx: Tx, validationKey: string, until: number): Promise<void> {
    await managerOf(tx).update(Checkout, { validationKey }, { expiresAt: until });
  }

  dueForExpiry(tx: Tx, now: number, limit: number): Promise<string[]> {
    return this.claim(tx, "c.state = 'open' AND c.expiresAt <= :at", now, limit);
  }

  dueForErasure(tx: Tx, before: number, limit: number): Promise<string[]> {
    return this.claim(tx, 'c.personalDataErasedAt IS NULL AND c.expiresAt <= :at', before, limit);
  }

  private async claim(tx: Tx, where: string, at: number, limit: number): Promise<string[]> {
    const manager = managerOf(tx);
    const due = manager
      .createQueryBuilder(Checkout, 'c')
      .select('c.validationKey', 'validationKey')
      .where(where, { at })
      .orderBy('c.expiresAt', 'ASC')
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
