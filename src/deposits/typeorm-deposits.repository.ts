import { Injectable } from '@nestjs/common';
import { In, type SelectQueryBuilder } from 'typeorm';
import { kindOf } from '../database/dialect.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import type { DepositRecord } from './deposit-rules.js';
import { Deposit, DepositAddress, DepositQuote } from './deposits.entity.js';
import {
  DepositAddressRecord,
  DepositChange,
  DepositRepository,
  QuotedAsset,
  QuoteRecord,
} from './deposits.repository.js';
import type { DepositNetwork } from './networks.js';

/** Locks the rows a read inside a transaction returns (PostgreSQL; SQLite has one writer). */
function locked<T extends object>(tx: Tx, query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
  return kindOf(managerOf(tx).connection) === 'postgres'
    ? query.setLock('pessimistic_write')
    : query;
}

@Injectable()
export class TypeOrmDepositRepository extends DepositRepository {
  async addressOfIn(
    tx: Tx,
    validationKey: string,
    network: DepositNetwork,
  ): Promise<DepositAddressRecord | undefined> {
    return (await managerOf(tx).findOneBy(DepositAddress, { validationKey, network })) ?? undefined;
  }

  async addressByIdIn(tx: Tx, id: number): Promise<DepositAddressRecord | undefined> {
    return (await managerOf(tx).findOneBy(DepositAddress, { id })) ?? undefined;
  }

  async insertAddress(tx: Tx, address: Omit<DepositAddressRecord, 'id'>): Promise<number> {
    const result = await managerOf(tx).insert(DepositAddress, address);
    return Number(result.identifiers[0].id);
  }

  async setAddressAsset(tx: Tx, id: number, asset: QuotedAsset): Promise<void> {
    await managerOf(tx).update(DepositAddress, { id }, asset);
  }

  async quoteIn(tx: Tx, validationKey: string): Promise<QuoteRecord | undefined> {
    return (await managerOf(tx).findOneBy(DepositQuote, { validationKey })) ?? undefined;
  }

  async putQuote(tx: Tx, quote: QuoteRecord): Promise<void> {
    await managerOf(tx).upsert(DepositQuote, quote, ['validationKey']);
  }

  async quotesOfIn(tx: Tx, validationKeys: readonly string[]): Promise<QuoteRecord[]> {
    if (validationKeys.length === 0) return [];
    return managerOf(tx).findBy(DepositQuote, { validationKey: In([...validationKeys]) });
  }

  async lockAddressIn(
    tx: Tx,
    network: DepositNetwork,
    lookup: string,
  ): Promise<DepositAddressRecord | undefined> {
    const query = managerOf(tx)
      .createQueryBuilder(DepositAddress, 'a')
      .where('a.network = :network AND a.lookup = :lookup', { network, lookup });
    return (await locked(tx, query).getOne()) ?? undefined;
  }

  async lockAddressesOfIn(
    tx: Tx,
    validationKeys: readonly string[],
  ): Promise<DepositAddressRecord[]> {
    if (validationKeys.length === 0) return [];
    const query = managerOf(tx)
      .createQueryBuilder(DepositAddress, 'a')
      .where('a.validationKey IN (:...keys)', { keys: validationKeys })
      // One order for every transaction that locks several: none waits on another in a loop.
      .orderBy('a.id');
    return locked(tx, query).getMany();
  }

  async depositIn(
    tx: Tx,
    network: DepositNetwork,
    txid: string,
    outputIndex: number,
  ): Promise<DepositRecord | undefined> {
    const row = await managerOf(tx).findOneBy(Deposit, { network, txid, outputIndex });
    return row ? (row as DepositRecord) : undefined;
  }

  async depositsOfIn(tx: Tx, validationKeys: readonly string[]): Promise<DepositRecord[]> {
    if (validationKeys.length === 0) return [];
    return (await managerOf(tx).find(Deposit, {
      where: { validationKey: In([...validationKeys]) },
      order: { id: 'ASC' },
    })) as DepositRecord[];
  }

  async insertDeposit(tx: Tx, deposit: Omit<DepositRecord, 'id'>): Promise<number> {
    const result = await managerOf(tx).insert(Deposit, deposit);
    return Number(result.identifiers[0].id);
  }

  async updateDeposit(tx: Tx, id: number, change: DepositChange): Promise<void> {
    await managerOf(tx).update(Deposit, { id }, change);
  }
}
