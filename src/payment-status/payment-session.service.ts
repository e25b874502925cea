import { boundedCache } from '../common/cache/bounded-cache.js';
import { Injectable, Optional } from '@nestjs/common';
import { CallbackOutbox, type NewCallback } from '../callbacks/callback-outbox.js';
import { ApiError } from '../common/errors/api-error.js';
import { CoalescedReads } from '../database/coalesced-read.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { CacheLookups, UNCOUNTED_CACHE_LOOKUPS } from '../metrics/cache-lookups.js';
import { PaymentReportDto } from './dto/payment-report.dto.js';
import { sessionChange, statusFieldErrors, toStoredReport } from './payment-report.rules.js';
import {
  NewTransition,
  PaymentSessionRepository,
  SessionRecord,
  SessionUpdate,
  TransitionRecord,
} from './payment-session.repository.js';
import { buildStatusElement, callbackBody } from './payment-status.shapes.js';
import {
  PaymentStatus,
  VALIDATION_KEY_RULE,
  isFinal,
  isValidationKey,
} from './payment-status.types.js';

export type ReportOutcome = 'created' | 'updated' | 'unchanged';

export interface ReportResult {
  outcome: ReportOutcome;
  session: SessionRecord;
}

/** A status answer as built from the stored session, and whose it is. */
interface StatusAnswer {
  merchantId: string;
  body: string;
}

/** Memory the final answers may take (a SUCCESSFUL answer is about 2 KB as kept). */
const FINAL_ANSWER_BYTES = 32 * 1024 * 1024;

/** Times a report is applied again after losing a race, before it answers 409. */
export const MAX_REPORT_ATTEMPTS = 5;

/** Statuses whose arrival calls the merchant back. */
const CALLBACK_STATUSES: readonly PaymentStatus[] = ['SUCCESSFUL', 'FAILED', 'NOT_COMPLETED'];

export interface ApplyOptions {
  /** Store the callbacks the transitions cause (seed files do not, unless asked). */
  callbacks: boolean;
}

/** Lost a race with another writer; the report is judged again against the new state. */
class StaleVersion extends Error {}

/** Payment sessions: the merchant's status lookup and the operator's state machine. */
@Injectable()
export class PaymentSessionService {
  private readonly finalAnswers = boundedCache<StatusAnswer>({ maxBytes: FINAL_ANSWER_BYTES });
  /** Concurrent lookups of one key share a read (and the answer built from it). */
  private readonly answers = new CoalescedReads((key: string) => this.readAnswer(key));

  constructor(
    private readonly sessions: PaymentSessionRepository,
    private readonly merchants: MerchantService,
    private readonly transactions: Transactions,
    private readonly outbox: CallbackOutbox,
    @Optional() private readonly lookups: CacheLookups = UNCOUNTED_CACHE_LOOKUPS,
  ) {}

  /**
   * The serialised status answer, or undefined when the key is unknown, cannot exist or belongs
   * to another merchant (`merchantId` undefined: any merchant may read). SUCCESSFUL and FAILED
   * never change, so their answers are kept, serialised, once built; every other status is read
   * afresh so it reflects the latest report. Lookups of the same key that arrive while its read is
   * pending share the next read: each still sees every report committed before it arrived.
   */
  async statusBody(validationKey: string, merchantId?: string): Promise<string | undefined> {
    const final = this.finalAnswers.get(validationKey);
    this.lookups.cacheLookup('final_status', Boolean(final));
    if (final) {
      return merchantId === undefined || final.merchantId === merchantId ? final.body : undefined;
    }
    // A key that cannot exist (too long, a control character, a slash) is a miss without a read.
    if (!isValidationKey(validationKey)) return undefined;
    const answer = await this.answers.get(validationKey);
    if (!answer || (merchantId !== undefined && answer.merchantId !== merchantId)) return undefined;
    return answer.body;
  }

  private async readAnswer(validationKey: string): Promise<StatusAnswer | undefined> {
    const session = await this.sessions.find(validationKey);
    if (!session) return undefined;
    const answer = {
      merchantId: session.merchantId,
      body: JSON.stringify({ payload: [buildStatusElement(validationKey, session)] }),
    };
    if (isFinal(session.status)) this.finalAnswers.set(validationKey, answer);
    return answer;
  }

  /** Creates the session or moves it to a new state, in its own transaction. */
  async report(validationKey: string, report: PaymentReportDto): Promise<ReportResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactions.run((tx) => this.apply(tx, validationKey, report));
      } catch (error) {
        if (!(error instanceof StaleVersion)) throw error;
        if (attempt >= MAX_REPORT_ATTEMPTS) {
          throw new ApiError('CONFLICT', {
            message: 'The payment session kept changing while this report was applied; retry.',
          });
        }
      }
    }
  }

  /**
   * The state machine, inside the caller's transaction. NOT_COMPLETED and PENDING may move to any
   * status; SUCCESSFUL and FAILED are final: the identical report again is a no-op, anything else
   * a 409. The update is conditional on the version read, so of two concurrent writers (in this
   * process or another) exactly one wins; the other is judged again against the new state.
   */
  async apply(
    tx: Tx,
    validationKey: string,
    report: PaymentReportDto,
    options: ApplyOptions = { callbacks: true },
  ): Promise<ReportResult> {
    this.validate(validationKey, report);
    const next = toStoredReport(report);
    const current = await this.sessions.findIn(tx, validationKey);
    if (!current && !(await this.merchants.exists(tx, report.merchantId))) throw unknownMerchant();
    const change = sessionChange(validationKey, report, next, current);
    if (change.outcome === 'created' && !(await this.sessions.insert(tx, change.session))) {
      throw new StaleVersion();
    }
    if (
      change.outcome === 'updated' &&
      !(await this.sessions.updateIfVersion(
        tx,
        validationKey,
        change.previous.version,
        change.stored,
      ))
    ) {
      throw new StaleVersion();
    }
    if (change.transitioned) await this.transitioned(tx, change.session, change.previous, options);
    return { outcome: change.outcome, session: change.session };
  }

  /**
   * apply() for the reports of many different sessions (a seed file), inside the caller's
   * transaction: the sessions are read, judged and written a batch at a time. Each report's result
   * is at its place: its outcome, or the ApiError apply() would have thrown for it.
   */
  async applyBatch(
    tx: Tx,
    reports: { validationKey: string; report: PaymentReportDto }[],
    options: ApplyOptions,
  ): Promise<(ReportOutcome | ApiError)[]> {
    const results: (ReportOutcome | ApiError)[] = [];
    const refused = (index: number) => (error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      results[index] = error;
    };
    const judged: number[] = [];
    reports.forEach(({ validationKey, report }, index) => {
      try {
        this.validate(validationKey, report);
        judged.push(index);
      } catch (error) {
        refused(index)(error);
      }
    });
    const stored = await this.sessions.findManyIn(
      tx,
      judged.map((index) => reports[index].validationKey),
    );
    const merchants = new Map<string, boolean>();
    for (const index of judged) {
      const { validationKey, report } = reports[index];
      if (stored.has(validationKey) || merchants.has(report.merchantId)) continue;
      merchants.set(report.merchantId, await this.merchants.exists(tx, report.merchantId));
    }
    const inserts: SessionRecord[] = [];
    const updates: SessionUpdate[] = [];
    const transitions: NewTransition[] = [];
    const callbacks: NewCallback[] = [];
    for (const index of judged) {
      const { validationKey, report } = reports[index];
      const current = stored.get(validationKey);
      try {
        if (!current && !merchants.get(report.merchantId)) throw unknownMerchant();
        const change = sessionChange(validationKey, report, toStoredReport(report), current);
        if (change.outcome === 'created') inserts.push(change.session);
        if (change.outcome === 'updated') {
          const expectedVersion = change.previous.version;
          updates.push({ validationKey, expectedVersion, next: change.stored });
        }
        if (change.transitioned) {
          transitions.push(transitionOf(change.session, change.previous));
          const callback = options.callbacks ? callbackOf(change.session) : undefined;
          if (callback) callbacks.push(callback);
        }
        results[index] = change.outcome;
      } catch (error) {
        refused(index)(error);
      }
    }
    await this.sessions.insertMany(tx, inserts);
    if ((await this.sessions.updateManyIfVersion(tx, updates)) !== updates.length) {
      throw new StaleVersion('A payment session changed while the batch was applied.');
    }
    await this.sessions.addTransitions(tx, transitions);
    for (const callback of callbacks) await this.outbox.enqueue(tx, callback);
    return results;
  }

  /** Every transition of the session, oldest first; undefined for an unknown session. */
  async history(validationKey: string): Promise<TransitionRecord[] | undefined> {
    const transitions = await this.sessions.history(validationKey);
    return transitions.length > 0 ? transitions : undefined;
  }

  private validate(validationKey: string, report: PaymentReportDto): void {
    const errors = statusFieldErrors(validationKey, report);
    for (const field of ['returnUrl', 'errorUrl'] as const) {
      const url = report[field];
      const refusal = url === undefined ? undefined : this.outbox.urlRefusal(url);
      if (refusal) errors.push({ field, message: refusal });
    }
    if (!isValidationKey(validationKey)) {
      errors.unshift({ field: 'validationKey', message: VALIDATION_KEY_RULE });
    }
    if (errors.length > 0) throw ApiError.invalidParameters(errors);
  }

  /**
   * Records the transition and, inside the same transaction, the callback it causes: a session
   * that becomes SUCCESSFUL, FAILED or NOT_COMPLETED calls the merchant back (SUCCESSFUL on its
   * returnUrl, the others on errorUrl, else returnUrl; no URL, no callback).
   */
  private async transitioned(
    tx: Tx,
    session: SessionRecord,
    previous: SessionRecord | null,
    options: ApplyOptions,
  ): Promise<void> {
    const transition = this.recordTransition(tx, session, previous);
    const callback = options.callbacks ? callbackOf(session) : undefined;
    // Two rows independent of each other: sent together, one round trip of the transaction
    // rather than two (a serialised SQLite write waits an event-loop turn for each).
    await Promise.all([transition, callback && this.outbox.enqueue(tx, callback)]);
  }

  private recordTransition(
    tx: Tx,
    session: SessionRecord,
    previous: SessionRecord | null,
  ): Promise<void> {
    const { validationKey, ...transition } = transitionOf(session, previous);
    return this.sessions.addTransition(tx, validationKey, transition);
  }
}

/** The transition that produced `session` from `previous` (null: it was created). */
function transitionOf(session: SessionRecord, previous: SessionRecord | null): NewTransition {
  return {
    validationKey: session.validationKey,
    version: session.version,
    fromStatus: previous?.status ?? null,
    toStatus: session.status,
    detailedStatus: session.detailedStatus,
  };
}

function unknownMerchant(): ApiError {
  return ApiError.invalidParameters([
    { field: 'merchantId', message: 'must name an existing merchant' },
  ]);
}

/** The callback a transition into `session` causes, if any. */
function callbackOf(session: SessionRecord): NewCallback | undefined {
  if (!CALLBACK_STATUSES.includes(session.status)) return undefined;
  const url =
    session.status === 'SUCCESSFUL' ? session.returnUrl : (session.errorUrl ?? session.returnUrl);
  if (url === null) return undefined;
  return {
    validationKey: session.validationKey,
    merchantId: session.merchantId,
    status: session.status,
    url,
    body: callbackBody(session.validationKey, session),
  };
}
