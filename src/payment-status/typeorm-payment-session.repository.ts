import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { insertRows, insertUnlessDuplicate, managerOf } from '../database/typeorm-transactions.js';
import { PaymentSession, PaymentSessionTransition } from './payment-session.entity.js';
import {
  CallbackUrls,
  PaymentSessionRepository,
  SessionRecord,
  TransitionRecord,
} from './payment-session.repository.js';
import type { StoredReport } from './payment-status.shapes.js';

const SESSION_SQL =
  'SELECT validation_key AS "validationKey", merchant_id AS "merchantId", status, ' +
  'detailed_status AS "detailedStatus", error_message AS "errorMessage", ' +
  'payment_response AS "paymentResponse", return_url AS "returnUrl", error_url AS "errorUrl", ' +
  'version FROM payment_session WHERE validation_key = ?';

@Injectable()
export class TypeOrmPaymentSessionRepository extends PaymentSessionRepository {
  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    super();
  }

  find(validationKey: string): Promise<SessionRecord | undefined> {
    return this.reads.first<SessionRecord>(SESSION_SQL, [validationKey]);
  }

  async findIn(tx: Tx, validationKey: string): Promise<SessionRecord | undefined> {
    const row = await managerOf(tx).findOneBy(PaymentSession, { validationKey });
    return row ? toRecord(row) : undefined;
  }

  async insert(tx: Tx, session: SessionRecord): Promise<boolean> {
    return (await insertUnlessDuplicate(tx, PaymentSession, session)) !== undefined;
  }

  async updateIfVersion(
    tx: Tx,
    validationKey: string,
    expectedVersion: number,
    next: StoredReport & CallbackUrls,
  ): Promise<boolean> {
    const result = await managerOf(tx)
      .createQueryBuilder()
      .update(PaymentSession)
      .set({ ...next, version: expectedVersion + 1 })
      .where('validation_key = :validationKey AND version = :expectedVersion', {
        validationKey,
        expectedVersion,
      })
      .execute();
    return result.affected === 1;
  }

  async addTransition(
    tx: Tx,
    validationKey: string,
    transition: Omit<TransitionRecord, 'at'>,
  ): Promise<void> {
    await insertRows(tx, PaymentSessionTransition, { validationKey, ...transition });
  }

  async history(validationKey: string): Promise<TransitionRecord[]> {
    const rows = await this.dataSource.getRepository(PaymentSessionTransition).find({
      where: { validationKey },
      order: { version: 'ASC' },
    });
    return rows.map((row) => ({
      version: row.version,
      fromStatus: row.fromStatus,
      toStatus: row.toStatus,
      detailedStatus: row.detailedStatus,
      at: new Date(row.at),
    }));
  }
}

function toRecord(row: PaymentSession): SessionRecord {
  return {
    validationKey: row.validationKey,
    merchantId: row.merchantId,
    status: row.status,
    detailedStatus: row.detailedStatus,
    errorMessage: row.errorMessage,
    paymentResponse: row.paymentResponse,
    returnUrl: row.returnUrl,
    errorUrl: row.errorUrl,
    version: row.version,
  };
}
