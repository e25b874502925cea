import { Injectable } from '@nestjs/common';
import { AuditTrail, type ChangeRecord } from '../audit/audit-trail.service.js';
import { REDACTED, changesBetween } from '../audit/changes.js';
import { ENTRY_OVERHEAD_BYTES } from '../common/cache/bounded-cache.js';
import { ChangeFeed } from '../database/change-feed.js';
import { ChangeFeedCache, EVERY_KEY } from '../database/change-feed-cache.js';
import { DatabaseFiles } from '../database/database-files.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { OperatorCall } from '../access/operator-call.js';
import {
  CallbackOutbox,
  shownCallbackUrl,
  type NewCallback,
} from '../callbacks/callback-outbox.js';
import { ApiError } from '../common/errors/api-error.js';
import { BatchedUnits } from '../database/batched-units.js';
import { isDatabaseUnavailable, isLostRace } from '../database/dialect.js';
import { Transactions, allStatements, type Tx } from '../database/transactions.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { CacheLookups } from '../metrics/cache-lookups.js';
import { PaymentReportDto } from './dto/payment-report.dto.js';
import {
  SessionTimes,
  sessionChange,
  statusFieldErrors,
  toStoredReport,
} from './payment-report.rules.js';
import { Actor } from './actor.js';
import { PersonalDataHolders } from './personal-data-holders.js';
import {
  ListedSession,
  NewSession,
  NewTransition,
  PaymentSessionRepository,
  SeededTimes,
  SessionListQuery,
  SessionRecord,
  SessionUpdate,
  TransitionRecord,
} from './payment-session.repository.js';
import type { PaymentStatusElement } from './dto/payment-status-view.dto.js';
import { PERSONAL_FIELDS } from './payment-response.fields.js';
import { buildStatusElement, callbackBody, shownPaymentResponse } from './payment-status.shapes.js';
import { callbackBodyWithoutPersonalData, withoutPersonalData } from './personal-data.js';
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
  /** The session before the report; null when it created it. */
  previous: SessionRecord | null;
}

/** The change-feed kind that says a session's personal data was erased (`*`: many sessions). */
const PERSONAL_DATA_ERASED = 'personal-data-erased';

/** A status element as built from the stored session, and whose it is. */
interface StatusAnswer {
  merchantId: string;
  element: PaymentStatusElement;
  /** What keeping it costs, roughly (see answerBytes). */
  bytes: number;
  /** SUCCESSFUL or FAILED: the answer never changes but by an erasure, and may be kept. */
  final: boolean;
}

/** Memory the kept final answers may take, their bytes kept by the envelope interceptor included. */
const FINAL_ANSWER_BYTES = 8 * 1024 * 1024;

/** An element's objects and fields, beyond the text of its payment response. */
const ELEMENT_OVERHEAD_BYTES = 1024;

/**
 * What keeping a final answer costs, from the stored row without walking the element: the text
 * of its payment response three times over (the element's strings, the interceptor's serialised
 * bytes, the object fields around them) and a fixed part.
 */
function answerBytes(session: SessionRecord): number {
  const text =
    (session.paymentResponse?.length ?? 0) +
    (session.errorMessage?.length ?? 0) +
    (session.detailedStatus?.length ?? 0);
  return ENTRY_OVERHEAD_BYTES + ELEMENT_OVERHEAD_BYTES + 3 * text;
}

/** Times a report is applied again after losing a race, before it answers 409. */
export const MAX_REPORT_ATTEMPTS = 5;

/** Statuses whose arrival calls the merchant back. */
const CALLBACK_STATUSES: readonly PaymentStatus[] = ['SUCCESSFUL', 'FAILED', 'NOT_COMPLETED'];

/**
 * A report of a session's new state, as the state machine takes it: from an operator, a seed
 * file, the checkout (init-iframe, the page's actions, the expiry job) or a payment processor.
 */
export interface SessionReport {
  validationKey: string;
  report: PaymentReportDto;
  /** Who reports, when it is not the call's (TransitionOptions.actor). */
  actor?: Actor;
  /** The times a seed record gives the session (created, became final). */
  times?: SessionTimes;
}

/** How transition() applies its reports. */
export interface TransitionOptions {
  /** Store the callbacks the transitions cause (seed files do not, unless asked). */
  callbacks: boolean;
  /** Who reports: recorded as the creator of a new session and on each transition. */
  actor?: Actor;
  /**
   * Apply a report only to a session in one of these statuses, `null` standing for no session
   * yet (judged on the version the write is conditional on); any other is refused with a 409
   * CONFLICT saying `conflict`. For instance "SUCCESSFUL only while still PENDING or
   * NOT_COMPLETED", "FAILED at expiry only while PENDING", or `[null]`: "only create it".
   */
  onlyFrom?: { statuses: readonly (PaymentStatus | null)[]; conflict: string };
  /** Reads of the caller's own, sent with the reads of the reports' sessions. */
  prepare?: (tx: Tx) => Promise<void>;
  /**
   * The caller's own writes about the results (each at its report's place; an operator's audit
   * events), sent with the writes of the reports.
   */
  alongside?: (results: readonly (ReportResult | ApiError)[]) => Promise<void>;
}

/** Lost a race with another writer; the report is judged again against the new state. */
class StaleVersion extends Error {}

/** Reports applied in one unit of work at most (see BatchedUnits). */
const REPORTS_PER_BATCH = 64;

/** An operator's report waiting for its batch (see PaymentSessionService.report). */
interface QueuedReport {
  validationKey: string;
  report: PaymentReportDto;
  call?: OperatorCall;
}

/** Payment sessions: the merchant's status lookup and the operator's state machine. */
@Injectable()
export class PaymentSessionService {
  /** The final answers, dropped by an erasure of their personal data. */
  private readonly finalAnswers: ChangeFeedCache<StatusAnswer>;
  /** Operators' reports, a batch of distinct sessions at a time. */
  private readonly reports: BatchedUnits<QueuedReport, ReportResult | ApiError>;

  constructor(
    private readonly sessions: PaymentSessionRepository,
    private readonly merchants: MerchantService,
    private readonly transactions: Transactions,
    private readonly outbox: CallbackOutbox,
    private readonly audit: AuditTrail,
    private readonly lookups: CacheLookups,
    private readonly changes: ChangeFeed,
    private readonly files: DatabaseFiles,
    private readonly metrics: MetricsService,
    private readonly holders: PersonalDataHolders,
  ) {
    this.reports = new BatchedUnits(transactions, (tx, reports) => this.applyReports(tx, reports), {
      maxItems: REPORTS_PER_BATCH,
      joins: (batch, report) => !batch.some((r) => r.validationKey === report.validationKey),
    });
    this.finalAnswers = new ChangeFeedCache(
      changes,
      PERSONAL_DATA_ERASED,
      { maxBytes: FINAL_ANSWER_BYTES, sizeOf: (answer, key) => answer.bytes + 2 * key.length },
      (validationKey) => this.readAnswer(validationKey),
      (answer) => answer.final,
    );
  }

  /**
   * The session's status element, or undefined when the key is unknown, cannot exist or belongs
   * to another merchant (`merchantId` undefined: any merchant may read). SUCCESSFUL and FAILED
   * never change, so their elements are kept, frozen, once built (and the envelope interceptor
   * keeps their bytes beside them, for as long as the element is kept); every other status is
   * read afresh, on the read connection, so it reflects every report committed before the
   * lookup arrived (docs/operations.md, "Several instances"). This is the status lookup's one
   * cache: see docs/request-lifecycle.md, "Caches".
   */
  async status(
    validationKey: string,
    merchantId?: string,
  ): Promise<PaymentStatusElement | undefined> {
    const final = this.finalAnswers.kept(validationKey);
    this.lookups.cacheLookup('final_status', Boolean(final));
    const answer =
      final ??
      // A key that cannot exist (too long, a control character, a slash) is a miss without a read.
      (isValidationKey(validationKey) ? await this.finalAnswers.read(validationKey) : undefined);
    if (!answer || (merchantId !== undefined && answer.merchantId !== merchantId)) return undefined;
    return answer.element;
  }

  private async readAnswer(validationKey: string): Promise<StatusAnswer | undefined> {
    const session = await this.sessions.lookUp(validationKey);
    if (!session) return undefined;
    const element = buildStatusElement(validationKey, session);
    const final = isFinal(session.status);
    // A kept answer is shared by every lookup (and its bytes by the envelope interceptor).
    if (final) Object.freeze(element);
    return { merchantId: session.merchantId, element, bytes: answerBytes(session), final };
  }

  /**
   * Creates the session or moves it to a new state; an operator's report goes into the audit trail
   * in the same transaction. Reports that arrive while the writes before them are under way are
   * applied together, in one unit of work (see BatchedUnits and applyReports); each gets exactly
   * its own outcome. A batch that failed for another reason than the database's unavailability
   * (it lost a race with another writer, another process or instance; some fault of one of its
   * reports) is undone whole, and each of its reports is then applied alone, judged again against
   * the new state.
   */
  async report(
    validationKey: string,
    report: PaymentReportDto,
    call?: OperatorCall,
  ): Promise<ReportResult> {
    // A report refused on its own fields never reaches a transaction.
    this.validate(validationKey, report);
    try {
      const result = await this.reports.submit({ validationKey, report, call });
      if (result instanceof ApiError) throw result;
      return result;
    } catch (error) {
      // The database's refusal would be this report's alone too; anything else may be another
      // report's doing (a lost race, a fault of one report): this one is tried alone.
      if (error instanceof ApiError || isDatabaseUnavailable(error)) throw error;
    }
    // The batch was the first attempt.
    return this.transact(async (tx) => {
      const [result] = await this.applyReports(tx, [{ validationKey, report, call }]);
      if (result instanceof ApiError) throw result;
      return result;
    }, 2);
  }

  /**
   * Applies operators' reports of distinct sessions (transition) and appends their audit events,
   * in order, inside the caller's transaction. Each report's result is at its place: its outcome,
   * or the ApiError it is refused with.
   */
  private async applyReports(
    tx: Tx,
    reports: readonly QueuedReport[],
  ): Promise<(ReportResult | ApiError)[]> {
    return this.transition(
      tx,
      reports.map(({ validationKey, report, call }) => ({
        validationKey,
        report,
        actor: call && { kind: 'operator', id: call.operator.id, name: call.operator.name },
      })),
      {
        callbacks: true,
        prepare: (inTx) => this.audit.prepare(inTx),
        alongside: (results) =>
          this.audit.recordMany(
            tx,
            reports.flatMap(({ validationKey, call }, index) => {
              const result = results[index];
              if (result instanceof ApiError || result.outcome === 'unchanged') return [];
              return [{ call, change: reportChange(validationKey, result) }];
            }),
          ),
      },
    );
  }

  /**
   * Runs `work` in a transaction of its own, again (against the new state) when it lost a race
   * with another writer of the same session, up to MAX_REPORT_ATTEMPTS times in all (counted from
   * `firstAttempt`); then 409. For work that calls transition().
   */
  async transact<T>(work: (tx: Tx) => Promise<T>, firstAttempt = 1): Promise<T> {
    for (let attempt = firstAttempt; ; attempt++) {
      try {
        return await this.transactions.run(work);
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
   * Erases the session's personal data now (docs/operators.md, "Personal data"): from the
   * session, from its callbacks (pending and delivered), and from every instance's kept answer.
   * Money, references and status stay. NOT_FOUND for an unknown session; nothing to erase is a no-op.
   */
  async erasePersonalData(validationKey: string, call?: OperatorCall): Promise<void> {
    const erased = await this.transactions.run(async (tx) => {
      const session = await this.sessions.findIn(tx, validationKey);
      if (!session) {
        throw new ApiError('NOT_FOUND', {
          message: 'Payment session not found.',
          field: 'validationKey',
        });
      }
      const erased = await this.erase(tx, session);
      if (erased.length > 0) {
        await this.audit.record(tx, call, {
          target: validationKey,
          changes: Object.fromEntries(erased.map((field) => [field, { old: REDACTED, new: null }])),
        });
      }
      return erased.length;
    });
    this.finalAnswers.forget(validationKey);
    if (erased > 0) {
      this.metrics.personalDataErased(1, 'request');
      await this.files.dropOldPageVersions();
    }
  }

  /**
   * Erases the personal data of up to `limit` sessions final since `finalBefore` or earlier that
   * hold some, in one transaction (a batch of the retention job); how many sessions it looked at,
   * and how many it erased.
   */
  async eraseExpired(
    finalBefore: number,
    limit: number,
  ): Promise<{ examined: number; erased: number }> {
    const result = await this.transactions.run(async (tx) => {
      const due = await this.sessions.dueForErasure(tx, finalBefore, limit);
      let erased = 0;
      for (const session of due) if ((await this.erase(tx, session, false)).length > 0) erased++;
      if (erased > 0) {
        await this.audit.recordSystem(tx, 'erasePersonalDataOnRetention', {
          target: null,
          changes: { sessions: { old: null, new: erased } },
        });
        await this.changes.announce(tx, PERSONAL_DATA_ERASED, EVERY_KEY);
      }
      return { examined: due.length, erased };
    });
    if (result.erased > 0) this.finalAnswers.forget();
    return result;
  }

  /**
   * Erases one session's personal fields, its callbacks' and what other holders keep (the
   * checkout's customer and address), inside the caller's transaction; the dotted names of the
   * fields it erased (`paymentResponse.…`, `checkout.…`). A session whose payment response held
   * none is not marked as erased.
   */
  private async erase(
    tx: Tx,
    session: Pick<SessionRecord, 'validationKey' | 'paymentResponse'>,
    announce = true,
  ): Promise<string[]> {
    const { stored, erased } = withoutPersonalData(session.paymentResponse);
    const now = erased.length > 0 ? Date.now() : null;
    await this.sessions.storeErasure(tx, session.validationKey, stored, now);
    // What else holds the session's personal data (the checkout's customer and address) is
    // erased whether or not the payment response held any.
    const held = await this.holders.eraseIn(tx, session.validationKey);
    if (erased.length > 0) {
      await this.outbox.rewriteBodies(tx, session.validationKey, callbackBodyWithoutPersonalData);
      if (announce) await this.changes.announce(tx, PERSONAL_DATA_ERASED, session.validationKey);
    }
    return [...erased.map((field) => `paymentResponse.${field}`), ...held];
  }

  /**
   * The state machine, the one way a payment session is created or changed: the reports of
   * different sessions (one or many), inside the caller's transaction. NOT_COMPLETED and PENDING
   * may move to any status; SUCCESSFUL and FAILED are final: the identical report again is a
   * no-op, anything else a 409. The sessions are read, judged and written together, with a
   * statement per kind of row; each write is conditional on the version read (or on the key
   * being free), so of two concurrent writers, in this process or another, exactly one wins.
   * A transition records who made it and, in the same transaction, the callback it causes.
   *
   * Given many reports, each one's result is at its place: its outcome, or the ApiError it is
   * refused with (a refused report writes nothing). Given one, its result, or its ApiError
   * thrown. Throws StaleVersion, for the caller to undo the whole unit and judge it again
   * against the new state (transact), when another writer changed one of the sessions first.
   */
  async transition(
    tx: Tx,
    reports: readonly SessionReport[],
    options: TransitionOptions,
  ): Promise<(ReportResult | ApiError)[]>;
  async transition(
    tx: Tx,
    report: SessionReport,
    options: TransitionOptions,
  ): Promise<ReportResult>;
  async transition(
    tx: Tx,
    given: SessionReport | readonly SessionReport[],
    options: TransitionOptions,
  ): Promise<ReportResult | (ReportResult | ApiError)[]> {
    if (!isReportList(given)) {
      const [result] = await this.transition(tx, [given], options);
      if (result instanceof ApiError) throw result;
      return result;
    }
    const reports = given;
    const results: (ReportResult | ApiError)[] = [];
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
    // The reads are independent of each other: sent together, one round trip of the transaction
    // (every merchant named, though only a new session's matters).
    const merchantIds = [...new Set(judged.map((index) => reports[index].report.merchantId))];
    const [stored, ...exist] = await allStatements<unknown>([
      this.sessions.findManyIn(
        tx,
        judged.map((index) => reports[index].validationKey),
      ),
      ...merchantIds.map((id) => this.merchants.exists(tx, id)),
      options.prepare?.(tx),
    ]);
    const sessions = stored as Map<string, SessionRecord>;
    const merchants = new Map(merchantIds.map((id, i) => [id, exist[i] as boolean]));
    const inserts: NewSession[] = [];
    const updates: SessionUpdate[] = [];
    const transitions: NewTransition[] = [];
    const callbacks: NewCallback[] = [];
    const seededTimes: SeededTimes[] = [];
    for (const index of judged) {
      const { validationKey, report, times } = reports[index];
      const actor = reports[index].actor ?? options.actor;
      const current = sessions.get(validationKey);
      try {
        const only = options.onlyFrom;
        if (only && !only.statuses.includes(current?.status ?? null)) {
          throw new ApiError('CONFLICT', { message: only.conflict });
        }
        if (!current && !merchants.get(report.merchantId)) throw unknownMerchant();
        const change = sessionChange(validationKey, report, toStoredReport(report), current);
        if (change.outcome === 'created')
          inserts.push({ session: change.session, createdBy: actor });
        if (change.outcome === 'updated') {
          const expectedVersion = change.previous.version;
          updates.push({ validationKey, expectedVersion, next: change.stored });
        }
        if (change.transitioned) {
          transitions.push(transitionOf(change.session, change.previous, actor));
          const callback = options.callbacks ? callbackOf(change.session) : undefined;
          if (callback) callbacks.push(callback);
          const seeded = times && seededTimesOf(change.session, change.outcome, times);
          if (seeded) seededTimes.push(seeded);
        }
        const { outcome, session, previous } = change;
        results[index] = { outcome, session, previous };
      } catch (error) {
        refused(index)(error);
      }
    }
    // The writes too (no row refers to another by a constraint). A short count, a transition
    // whose version another writer recorded first (PostgreSQL: its update waited for the other
    // transaction, and the transition was sent before its count was known), or a deadlock with
    // another batch, means another writer got there first: the whole batch is undone
    // (allStatements: all of them ran).
    const [inserted, updated] = await allStatements<unknown>([
      this.sessions.insertMany(tx, inserts),
      this.sessions.updateManyIfVersion(tx, updates),
      this.sessions.addTransitions(tx, transitions),
      this.outbox.enqueue(tx, callbacks),
      options.alongside?.(results),
    ]).catch((error: unknown) => {
      if (!isLostRace(error)) throw error;
      throw new StaleVersion('A payment session changed while the batch was applied.');
    });
    if (inserted !== inserts.length) {
      throw new StaleVersion('A payment session was created while the batch was applied.');
    }
    if (updated !== updates.length) {
      throw new StaleVersion('A payment session changed while the batch was applied.');
    }
    // The seeded times of transitions too: once those are written.
    if (seededTimes.length > 0) await this.sessions.setSeededTimes(tx, seededTimes);
    return results;
  }

  /** The session as stored, inside the caller's transaction. */
  findIn(tx: Tx, validationKey: string): Promise<SessionRecord | undefined> {
    return this.sessions.findIn(tx, validationKey);
  }

  /** The sessions of these keys that exist, by key, inside the caller's transaction. */
  findManyIn(tx: Tx, validationKeys: string[]): Promise<Map<string, SessionRecord>> {
    return this.sessions.findManyIn(tx, validationKeys);
  }

  /** Sessions for the operator's list: newest first, filtered, a page after a cursor. */
  list(query: SessionListQuery): Promise<ListedSession[]> {
    return this.sessions.list(query);
  }

  /** One session with who created it and when, read afresh; undefined when unknown. */
  findListed(validationKey: string): Promise<ListedSession | undefined> {
    return this.sessions.findListed(validationKey);
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
}

function isReportList(
  given: SessionReport | readonly SessionReport[],
): given is readonly SessionReport[] {
  return Array.isArray(given);
}

/**
 * The times a seed record gives the session it wrote: its creation time when it created it, the
 * time it became final when it made it final; undefined when there are none to give.
 */
function seededTimesOf(
  session: SessionRecord,
  outcome: ReportOutcome,
  times: SessionTimes,
): SeededTimes | undefined {
  const createdAt = outcome === 'created' ? (times.createdAt ?? null) : null;
  const finalAt =
    isFinal(session.status) && times.finalAt !== undefined ? Date.parse(times.finalAt) : null;
  if (createdAt === null && finalAt === null) return undefined;
  return { validationKey: session.validationKey, createdAt, finalAt };
}

/** The transition that produced `session` from `previous` (null: it was created). */
function transitionOf(
  session: SessionRecord,
  previous: SessionRecord | null,
  actor: Actor | undefined,
): NewTransition {
  return {
    validationKey: session.validationKey,
    version: session.version,
    fromStatus: previous?.status ?? null,
    toStatus: session.status,
    detailedStatus: session.detailedStatus,
    actor: actor ?? null,
  };
}

/** What an operator's report changed, as its audit event records it. */
function reportChange(validationKey: string, result: ReportResult): ChangeRecord {
  return {
    target: validationKey,
    outcome: result.outcome === 'created' ? 201 : 200,
    changes: changesBetween(
      result.previous && audited(result.previous),
      audited(result.session),
      PERSONAL_FIELDS.map((field) => `paymentResponse.${field}`),
    ),
  };
}

function unknownMerchant(): ApiError {
  return ApiError.invalidParameters([
    { field: 'merchantId', message: 'must name an existing merchant' },
  ]);
}

/**
 * A session as the audit trail shows it: what was reported, the callback URLs without their query
 * (which may carry a merchant's token), and each field of the payment response as the API shows
 * it (amounts in the currency's units, not the minor units they are stored in).
 */
function audited(session: SessionRecord): Record<string, unknown> {
  const response = session.paymentResponse ? shownPaymentResponse(session.paymentResponse) : {};
  return {
    merchantId: session.merchantId,
    status: session.status,
    detailedStatus: session.detailedStatus,
    errorMessage: session.errorMessage,
    returnUrl: withoutQuery(session.returnUrl),
    errorUrl: withoutQuery(session.errorUrl),
    ...Object.fromEntries(
      Object.entries(response).map(([field, value]) => [`paymentResponse.${field}`, value]),
    ),
  };
}

function withoutQuery(url: string | null): string | null {
  return url === null ? null : shownCallbackUrl(url);
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
