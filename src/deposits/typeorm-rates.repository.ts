import { Injectable } from '@nestjs/common';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import { AssetRate } from './deposits.entity.js';
import { RateRecord, RateRepository } from './rates.repository.js';

@Injectable()
export class TypeOrmRateRepository extends RateRepository {
  constructor(private readonly reads: PreparedReads) {
    super();
  }

  list(): Promise<RateRecord[]> {
    const read = this.reads.of(AssetRate, 'r');
    read.query.orderBy('r.currencyCode').addOrderBy('r.fiat');
    return read.rows();
  }

  inFiat(fiat: string): Promise<RateRecord[]> {
    const read = this.reads.of(AssetRate, 'r');
    read.query.where('r.fiat = :fiat', { fiat }).orderBy('r.currencyCode');
    return read.rows();
  }

  async findIn(tx: Tx, currencyCode: string, fiat: string): Promise<RateRecord | undefined> {
    return (await managerOf(tx).findOneBy(AssetRate, { currencyCode, fiat })) ?? undefined;
  }

  async put(tx: Tx, rate: RateRecord): Promise<void> {
    await managerOf(tx).upsert(AssetRate, rate, ['currencyCode', 'fiat']);
  }
}
