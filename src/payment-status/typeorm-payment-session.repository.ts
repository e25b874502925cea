import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { claimLockClause } from '../database/dialect.js';
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
import { isFinal } from './payment-status.types.js';

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
    const row = { ...session, finalAt: isFinal(session.status) ? Date.now() : null };
    return (await insertUnlessDuplicate(tx, PaymentSession, row)) !== undefined;
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
      .set({
        ...next,
        version: expectedVersion + 1,
        ...(isFinal(next.status) ? { finalAt: Date.now() } : {}),
      })
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

  async dueForErasure(
    tx: Tx,
    finalBefore: number,
    limit: number,
  ): Promise<Pick<SessionRecord, 'validationKey' | 'paymentResponse'>[]> {
    const manager = managerOf(tx);
    const due = manager
      .createQueryBuilder(PaymentSession, 's')
      .select('s.validation_key', 'validationKey')
      .addSelect('s.payment_response', 'paymentResponse')
      .where('s.final_at <= :finalBefore', { finalBefore })
      .andWhere('s.personal_data_erased_at IS NULL')
      .orderBy('s.final_at', 'ASC')
      .limit(limit);
    const [sql, parameters] = due.getQueryAndParameters();
    return (await manager.query(sql + claimLockClause(this.dataSource), parameters)) as Pick<
      SessionRecord,
      'validationKey' | 'paymentResponse'
    >[];
  }

  async storeErasure(
    tx: Tx,
    validationKey: string,
    paymentResponse: string | null,
    erasedAt: number,
  ): Promise<void> {
    await managerOf(tx).update(
      PaymentSession,
      { validationKey },
      { paymentResponse, personalDataErasedAt: erasedAt },
    );
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
