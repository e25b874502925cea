import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EntityColumns } from '../database/entity-columns.js';
import { PreparedReads } from '../database/prepared-reads.js';
import { execute } from '../database/sql.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import {
  DepositKeyRecord,
  DepositKeyRepository,
  gapOf,
  type KeyGap,
} from './deposit-keys.repository.js';
import { DepositKey } from './deposits.entity.js';
import type { DepositNetwork } from './networks.js';

@Injectable()
export class TypeOrmDepositKeyRepository extends DepositKeyRepository {
  private readonly takeSql: string;
  private readonly nextSql: string;
  private readonly fundedSql: string;

  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() dataSource: DataSource,
  ) {
    super();
    const keys = new EntityColumns(dataSource, DepositKey);
    const next = keys.name('nextIndex');
    const funded = keys.name('fundedThrough');
    const id = keys.name('id');
    this.takeSql = `UPDATE ${keys.table} SET ${next} = ${next} + 1 WHERE ${id} = ?`;
    this.nextSql = `SELECT ${next} AS "nextIndex" FROM ${keys.table} WHERE ${id} = ?`;
    this.fundedSql = `UPDATE ${keys.table} SET ${funded} = ? WHERE ${id} = ? AND ${funded} < ?`;
  }

  async currentOf(merchantId: string): Promise<DepositKeyRecord[]> {
    const read = this.reads.of(DepositKey, 'k');
    read.query
      .where('k.merchantId = :merchantId', { merchantId })
      .andWhere('k.active = TRUE')
      .orderBy('k.network');
    return read.rows();
  }

  async currentIn(
    tx: Tx,
    merchantId: string,
    network: DepositNetwork,
  ): Promise<DepositKeyRecord | undefined> {
    return (
      (await managerOf(tx).findOneBy(DepositKey, { merchantId, network, active: true })) ??
      undefined
    );
  }

  async findByPublicKeyIn(tx: Tx, publicKey: string): Promise<DepositKeyRecord | undefined> {
    return (await managerOf(tx).findOneBy(DepositKey, { publicKey })) ?? undefined;
  }

  async insert(tx: Tx, key: Omit<DepositKeyRecord, 'id'>): Promise<number> {
    const result = await managerOf(tx).insert(DepositKey, key);
    return Number(result.identifiers[0].id);
  }

  async activate(tx: Tx, id: number): Promise<void> {
    await managerOf(tx).update(DepositKey, { id }, { active: true });
  }

  async deactivate(tx: Tx, merchantId: string, network: DepositNetwork): Promise<void> {
    await managerOf(tx).update(
      DepositKey,
      { merchantId, network, active: true },
      { active: false },
    );
  }

  async takeIndex(tx: Tx, id: number): Promise<number> {
    // The UPDATE locks the row for the transaction; the read after it sees the transaction's own
    // write (no RETURNING: the write path's SQLite statements return no rows).
    const { affected } = await execute(tx, this.takeSql, [id]);
    if (affected !== 1) throw new Error(`No deposit key ${id}`);
    const { rows } = await execute<{ nextIndex: number | string }>(tx, this.nextSql, [id]);
    return Number(rows[0].nextIndex) - 1;
  }

  async funded(tx: Tx, id: number, index: number): Promise<void> {
    await execute(tx, this.fundedSql, [index, id, index]);
  }

  async gaps(): Promise<KeyGap[]> {
    const read = this.reads.of(DepositKey, 'k', [
      'merchantId',
      'network',
      'nextIndex',
      'fundedThrough',
    ]);
    read.query.where('k.active = TRUE').orderBy('k.merchantId').addOrderBy('k.network');
    return (await read.rows()).map((key) => ({
      merchantId: key.merchantId,
      network: key.network,
      gap: gapOf(key),
    }));
  }
}
