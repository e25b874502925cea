import { CacheableMemory } from '@cacheable/memory';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, QueryFailedError, Repository } from 'typeorm';
import { ApiError } from '../common/errors/api-error.js';
import { HotReads, SessionRow } from '../database/hot-reads.js';
import { WriteQueue } from '../database/write-queue.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { PaymentReportDto } from './dto/payment-report.dto.js';
import { PaymentSession, PaymentSessionTransition } from './payment-session.entity.js';
import { sameReport, statusFieldErrors, toStoredReport } from './payment-report.rules.js';
import { buildStatusElement } from './payment-status.shapes.js';
import { MAX_VALIDATION_KEY_LENGTH, PaymentStatus, isFinal } from './payment-status.types.js';

export type ReportOutcome = 'created' | 'updated' | 'unchanged';

export interface ReportResult {
  outcome: ReportOutcome;
  session: PaymentSession;
}

export interface TransitionView {
  from: string | null;
  to: string;
  detailedStatus?: string;
  at: string;
}

interface FinalAnswer {
  merchantId: string;
  body: string;
}

/** Final answers kept in memory at most (a SUCCESSFUL answer is about 1 KB). */
const FINAL_ANSWER_ENTRIES = 20_000;

function notFound(): ApiError {
  return new ApiError('TRANSACTION_FAILED', { field: 'validationKey' });
}

/** Lost a race with another writer; the report is evaluated again against the new state. */
class StaleVersion extends Error {}

const MAX_ATTEMPTS = 5;

/** Payment sessions: the merchant's status lookup and the operator's state machine. */
@Injectable()
export class PaymentSessionService {
  private readonly finalAnswers = new CacheableMemory({
    lruSize: FINAL_ANSWER_ENTRIES,
    useClone: false,
  });

  constructor(
    @InjectRepository(PaymentSessionTransition)
    private readonly transitions: Repository<PaymentSessionTransition>,
    private readonly writes: WriteQueue,
    private readonly hotReads: HotReads,
  ) {}

  /**
   * The serialised status answer of section 3, or the one 404 whether the key is unknown,
   * impossible or owned by another merchant (`merchantId` undefined: any merchant may read).
   * SUCCESSFUL and FAILED never change, so their answers are kept, serialised, once built;
   * every other status is read afresh so it reflects the latest report.
   */
  async statusBody(validationKey: string, merchantId?: string): Promise<string> {
    const final = this.finalAnswers.get<FinalAnswer>(validationKey);
    if (final) {
      if (merchantId !== undefined && final.merchantId !== merchantId) throw notFound();
      return final.body;
    }
    const session = await this.find(validationKey, merchantId);
    if (!session) throw notFound();
    const status = session.status as PaymentStatus;
    const element = buildStatusElement(session.validationKey, { ...session, status });
    const body = JSON.stringify({ payload: [element] });
    if (isFinal(status)) {
      this.finalAnswers.set(validationKey, { merchantId: session.merchantId, body });
    }
    return body;
  }

  /** The session if it exists and `merchantId` (when given) owns it. */
  async find(validationKey: string, merchantId?: string): Promise<SessionRow | undefined> {
    if (validationKey.length === 0 || validationKey.length > MAX_VALIDATION_KEY_LENGTH) {
      return undefined;
    }
    const session = await this.hotReads.session(validationKey);
    if (!session || (merchantId !== undefined && session.merchantId !== merchantId)) {
      return undefined;
    }
    return session;
  }

  /** Creates the session or moves it to a new state, in its own transaction. */
  async report(validationKey: string, report: PaymentReportDto): Promise<ReportResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.writes.run((manager) => this.apply(manager, validationKey, report));
      } catch (error) {
        if (!(error instanceof StaleVersion)) throw error;
        if (attempt >= MAX_ATTEMPTS) {
          throw new ApiError('CONFLICT', {
            message: 'The payment session kept changing while this report was applied; retry.',
          });
        }
      }
    }
  }

  /**
   * The state machine of section 6 inside the caller's transaction. NOT_COMPLETED and PENDING may
   * move to any status; SUCCESSFUL and FAILED are final: the identical report again is a no-op,
   * anything else a 409. The update is conditional on the version read, so of two concurrent
   * writers (in this process or another) exactly one wins.
   */
  async apply(
    manager: EntityManager,
    validationKey: string,
    report: PaymentReportDto,
  ): Promise<ReportResult> {
    this.validate(validationKey, report);
    const next = toStoredReport(report);
    const current = await manager.findOneBy(PaymentSession, { validationKey });

    if (!current) {
      if (!(await manager.existsBy(Merchant, { id: report.merchantId }))) {
        throw ApiError.invalidParameters([
          { field: 'merchantId', message: 'must name an existing merchant' },
        ]);
      }
      try {
        await manager.insert(PaymentSession, {
          validationKey,
          merchantId: report.merchantId,
          ...next,
          version: 1,
        });
      } catch (error) {
        // Another writer created the same session first: judge this report against it.
        if (error instanceof QueryFailedError && /UNIQUE|duplicate key/i.test(error.message)) {
          throw new StaleVersion();
        }
        throw error;
      }
      await this.recordTransition(
        manager,
        validationKey,
        1,
        null,
        next.status,
        next.detailedStatus,
      );
      return {
        outcome: 'created',
        session: await manager.findOneByOrFail(PaymentSession, { validationKey }),
      };
    }

    if (current.merchantId !== report.merchantId) {
      throw new ApiError('CONFLICT', {
        message: 'This payment session belongs to another merchant.',
        field: 'merchantId',
      });
    }
    if (sameReport(current, next)) return { outcome: 'unchanged', session: current };
    if (isFinal(current.status)) {
      throw new ApiError('CONFLICT', {
        message: `The payment session is ${current.status}, a final state; it cannot change.`,
        field: 'status',
      });
    }

    const version = current.version + 1;
    const result = await manager
      .createQueryBuilder()
      .update(PaymentSession)
      .set({ ...next, version })
      .where('validation_key = :validationKey AND version = :version', {
        validationKey,
        version: current.version,
      })
      .execute();
    if (result.affected !== 1) throw new StaleVersion();
    await this.recordTransition(
      manager,
      validationKey,
      version,
      current.status,
      next.status,
      next.detailedStatus,
    );
    return {
      outcome: 'updated',
      session: await manager.findOneByOrFail(PaymentSession, { validationKey }),
    };
  }

  async history(validationKey: string): Promise<TransitionView[]> {
    const rows = await this.transitions.find({
      where: { validationKey },
      order: { version: 'ASC' },
    });
    if (rows.length === 0) {
      throw new ApiError('NOT_FOUND', {
        message: 'Payment session not found.',
        field: 'validationKey',
      });
    }
    return rows.map((row) => ({
      from: row.fromStatus,
      to: row.toStatus,
      ...(row.detailedStatus === null ? {} : { detailedStatus: row.detailedStatus }),
      at: new Date(row.at).toISOString(),
    }));
  }

  private validate(validationKey: string, report: PaymentReportDto): void {
    const errors = statusFieldErrors(validationKey, report);
    if (validationKey.length === 0 || validationKey.length > MAX_VALIDATION_KEY_LENGTH) {
      errors.unshift({ field: 'validationKey', message: 'must be a text of 1 to 255 characters' });
    }
    if (errors.length > 0) throw ApiError.invalidParameters(errors);
  }

  private async recordTransition(
    manager: EntityManager,
    validationKey: string,
    version: number,
    fromStatus: PaymentSession['status'] | null,
    toStatus: PaymentSession['status'],
    detailedStatus: string | null,
  ): Promise<void> {
    await manager.insert(PaymentSessionTransition, {
      validationKey,
      version,
      fromStatus,
      toStatus,
      detailedStatus,
    });
  }
}
