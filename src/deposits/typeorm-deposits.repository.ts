import { Injectable } from '@nestjs/common';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import { DepositAddress, DepositQuote } from './deposits.entity.js';
import {
  DepositAddressRecord,
  DepositRepository,
  QuotedAsset,
  QuoteRecord,
} from './deposits.repository.js';
import type { DepositNetwork } from './networks.js';

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
}
