import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../access/operator-call.js';
import { RefusalRecorder, type RefusedOperatorRequest } from '../access/access-ports.js';
import {
  AuditContent,
  BrokenLink,
  ChainCheck,
  GENESIS_HASH,
  linkOf,
  type StoredAuditEvent,
} from './audit-chain.js';
import { AuditHeads } from './audit-heads.js';
import { AuditKeyring } from './audit-keys.js';
import type { PageRequest } from '../database/prepared-reads.js';
import { AuditFilter, AuditRepository } from './audit.repository.js';
import type { Changes } from './changes.js';
import { CountedRefusals, OTHER_ADDRESSES, RefusalCounts } from './refusal-counts.js';

/** The action of the event that counts the refusals of one address in one window. */
export const REFUSALS_COUNTED_ACTION = 'refusedRequests';

/** What an event records; the chain gives it its place, time, key and links. */
type EventContent = Omit<AuditContent, 'seq' | 'at' | 'prevHash' | 'keyId'>;

/** The longest target an event stores (its column's length). */
const MAX_TARGET_LENGTH = 300;

// eslint-disable-next-line no-control-regex -- escaping control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * The target of a refused request as stored: the path parameter as the caller sent it, unchecked
 * (refused before any validation), so its control characters are written as `\u0000` escapes —
 * PostgreSQL stores no NUL in text — and it is cut to the column's length.
 */
function refusedTarget(target: string | null): string | null {
  if (target === null) return null;
  return target
    .replace(CONTROL_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .slice(0, MAX_TARGET_LENGTH);
}

/** How long after its window ends a count is written (the window's last requests answered). */
const COUNTS_GRACE_MS = 100;

/**
 * The event of the refusals of one address counted in one window: who (`unknown`: a caller
 * without a working token; its address as the target), the most frequent status as the outcome,
 * and in `changes` how many, when, of which statuses and for which reasons.
 */
function countedEvent(counted: CountedRefusals): EventContent {
  const outcomes = Object.entries(counted.byOutcome).sort(
    ([statusA, a], [statusB, b]) => b - a || Number(statusB) - Number(statusA),
  );
  return {
    ...UNKNOWN_EVENT_ACTOR,
    action: REFUSALS_COUNTED_ACTION,
    target:
      counted.address === OTHER_ADDRESSES ? OTHER_ADDRESSES : counted.address.replace(/^ip:/, ''),
    outcome: Number(outcomes[0][0]),
    requestId: null,
    changes: {
      refusedRequests: {
        old: null,
        new: {
          count: counted.count,
          from: new Date(counted.from).toISOString(),
          to: new Date(counted.to).toISOString(),
          byOutcome: counted.byOutcome,
          byReason: counted.byReason,
        },
      },
    },
    reason: null,
  };
}

/** Events read at a time when the chain is verified. */
const VERIFY_BATCH = 1000;

/** The actor of an event whose caller was not recognised. */
const UNKNOWN_ACTOR = { kind: 'unknown', id: null, name: 'unknown' } as const;
const UNKNOWN_EVENT_ACTOR = {
  actorKind: UNKNOWN_ACTOR.kind,
  operatorId: UNKNOWN_ACTOR.id,
  operatorName: UNKNOWN_ACTOR.name,
};

/** What a change records besides who made it: what it acted on and which fields changed. */
export interface ChangeRecord {
  target: string | null;
  changes: Changes;
  /** The status answered; the route's usual success status when absent. */
  outcome?: number;
}

/** A head kept outside the database: the chain's number of events then, and the last link. */
export interface KeptHead {
  events: number;
  headHash: string;
}

const NOT_THE_KEPT_HEAD =
  'its link is not the kept head: the chain was rewritten at or before this event';

/** The outcome of checking the whole chain. */
export interface ChainVerification {
  valid: boolean;
  /** Events checked (up to the first broken link). */
  events: number;
  /** The hash of the last event (GENESIS_HASH for an empty trail), when the chain holds. */
  headHash?: string;
  brokenAt?: BrokenLink;
}

/**
 * The audit trail: one event per operator request that changed something, appended in the same
 * transaction as the change, and one per refused operator request. Events form a keyed chain
 * (each link is the HMAC-SHA256, under the audit key, of the event's content and the previous
 * link), one chain across every instance; no route changes or deletes an event.
 */
@Injectable()
export class AuditTrail extends RefusalRecorder implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private readonly refusals = new RefusalCounts();
  private countsTimer?: NodeJS.Timeout;

  constructor(
    private readonly events: AuditRepository,
    private readonly transactions: Transactions,
    private readonly keys: AuditKeyring,
    private readonly heads: AuditHeads,
  ) {
    super();
  }

  /** The refusals counted and not yet written become their events before the process ends. */
  async beforeApplicationShutdown(): Promise<void> {
    clearTimeout(this.countsTimer);
    this.countsTimer = undefined;
    await this.writeCounts(this.refusals.takeEnded(Date.now(), true));
  }

  /**
   * Appends the event of a change, inside the transaction making it; nothing without an operator
   * request (a seed file, the retention job record their own or none).
   */
  async record(tx: Tx, call: OperatorCall | undefined, change: ChangeRecord): Promise<void> {
    await this.recordMany(tx, [{ call, change }]);
  }

  /** record() for several changes of one transaction, in order: their events appended at once. */
  async recordMany(
    tx: Tx,
    records: readonly { call: OperatorCall | undefined; change: ChangeRecord }[],
  ): Promise<void> {
    const events: EventContent[] = [];
    for (const { call, change } of records) {
      if (!call) continue;
      events.push({
        actorKind: call.operator.kind,
        operatorId: call.operator.id,
        operatorName: call.operator.name,
        action: call.action,
        target: change.target,
        outcome: change.outcome ?? call.status,
        requestId: call.requestId,
        changes: change.changes,
        reason: null,
      });
    }
    await this.append(tx, ...events);
  }

  /**
   * Reads, inside the transaction, what an append later in it needs, where the transaction keeps
   * it (see AuditRepository.prepare): sent with the caller's own reads, it saves a round trip.
   */
  prepare(tx: Tx): Promise<void> {
    return this.events.prepare(tx);
  }

  /** Appends the event of a change made by the service itself (the retention job). */
  async recordSystem(tx: Tx, action: string, change: ChangeRecord): Promise<void> {
    await this.append(tx, {
      actorKind: 'system',
      operatorId: 'system',
      operatorName: 'system',
      action,
      target: change.target,
      outcome: change.outcome ?? 200,
      requestId: null,
      changes: change.changes,
      reason: null,
    });
  }

  /**
   * Appends the event of a refused operator request, in a transaction of its own; or, once its
   * caller's address has been refused a few times in the current window (RefusalCounts), only
   * counts it: the window's counts become one event per address when it ends. A client sending
   * refused requests as fast as it can adds a few events a minute, not one per request.
   */
  async refused(request: RefusedOperatorRequest): Promise<void> {
    if (!this.refusals.take(request.address, request.outcome, request.reason, Date.now())) {
      this.scheduleCounts();
      return;
    }
    const actor = request.operator ?? UNKNOWN_ACTOR;
    await this.transactions.run((tx) =>
      this.append(tx, {
        actorKind: actor.kind,
        operatorId: actor.id,
        operatorName: actor.name,
        action: request.action,
        target: refusedTarget(request.target),
        outcome: request.outcome,
        requestId: request.requestId,
        changes: {},
        reason: request.reason,
      }),
    );
  }

  /** Writes the counts of the windows ended so far when the current one ends. */
  private scheduleCounts(): void {
    const until = this.refusals.pendingUntil;
    if (this.countsTimer || until === undefined) return;
    this.countsTimer = setTimeout(
      () => {
        this.countsTimer = undefined;
        void this.writeCounts(this.refusals.takeEnded(Date.now())).finally(() =>
          this.scheduleCounts(),
        );
      },
      Math.max(0, until - Date.now()) + COUNTS_GRACE_MS,
    );
    this.countsTimer.unref();
  }

  /** One event per address and window of counted refusals, appended together. */
  private async writeCounts(counts: readonly CountedRefusals[]): Promise<void> {
    if (counts.length === 0) return;
    try {
      await this.transactions.run((tx) => this.append(tx, ...counts.map(countedEvent)));
    } catch (error) {
      // The counts are not kept for another try: they would pile up while the database is away.
      this.logger.warn(
        { err: String(error), refusalsCounted: counts },
        'Could not record the counts of refused operator requests',
      );
    }
  }

  /**
   * The id of the key that linked the chain's latest event, when the service holds no such key
   * (AUDIT_KEY, AUDIT_KEYS_PREVIOUS): the chain was written under another key, and every event
   * appended now would fail to verify after it. Undefined when it holds it, or nothing is stored.
   */
  async missingHeadKey(): Promise<string | undefined> {
    const head = await this.transactions.run((tx) => this.events.last(tx));
    if (!head?.keyId || this.keys.find(head.keyId)) return undefined;
    return head.keyId;
  }

  /** Events newest first, filtered, a page at a time. */
  list(filter: AuditFilter, page: PageRequest) {
    return this.events.list(filter, page);
  }

  /**
   * Recomputes the chain from its start; names the first link that does not hold. With a head
   * kept earlier (`kept`), also that the chain still holds it: its event is there, and its link
   * is the kept one, so no event up to it was removed, altered or rewritten (even with the key).
   */
  async verify(kept?: KeptHead): Promise<ChainVerification> {
    const check = new ChainCheck(this.keys);
    let last: StoredAuditEvent | undefined;
    let checked = 0;
    let headHash = GENESIS_HASH;
    if (kept?.events === 0 && kept.headHash !== GENESIS_HASH) {
      return { valid: false, events: 0, brokenAt: { seq: 0, reason: NOT_THE_KEPT_HEAD } };
    }
    for (;;) {
      const batch = await this.transactions.run((tx) =>
        this.events.after(tx, last?.seq ?? 0, VERIFY_BATCH),
      );
      for (const event of batch) {
        const broken =
          check.next(event) ??
          (event.seq === kept?.events && event.hash !== kept.headHash
            ? { seq: event.seq, reason: NOT_THE_KEPT_HEAD }
            : undefined);
        if (broken) return { valid: false, events: checked, brokenAt: broken };
        checked++;
        headHash = event.hash;
      }
      if (batch.length < VERIFY_BATCH) break;
      last = batch[batch.length - 1];
    }
    // The walk read events 1 to `checked`, each once: every row numbered so far must be one of
    // them, or the list would show an event no link covers (a row numbered 0 or below).
    const census = await this.transactions.run((tx) => this.events.census(tx, checked));
    if (census.rows !== checked) {
      return {
        valid: false,
        events: checked,
        brokenAt: {
          seq: census.lowest ?? 0,
          reason: `it is numbered outside the chain, which runs from 1 to ${checked}: no link covers it, so the service did not append it`,
        },
      };
    }
    const broken = check.end();
    if (broken) return { valid: false, events: broken.seq - 1, brokenAt: broken };
    if (kept && kept.events > checked) {
      return {
        valid: false,
        events: checked,
        brokenAt: {
          seq: kept.events,
          reason: `it is missing: the chain ends at event ${checked}, before the kept head; events were removed from its end`,
        },
      };
    }
    return { valid: true, events: checked, headHash };
  }

  /** Appends the events in order, each linked to the one before it (the first to the head). */
  private async append(tx: Tx, ...events: EventContent[]): Promise<void> {
    if (events.length === 0) return;
    const appended = await this.events.append(tx, (head) => {
      const key = this.keys.current;
      const at = new Date().toISOString();
      let seq = head?.seq ?? 0;
      let prevHash = head?.hash ?? GENESIS_HASH;
      return events.map((event) => {
        const content: AuditContent = { seq: ++seq, at, ...event, keyId: key.id, prevHash };
        prevHash = linkOf(content, key.key);
        return { ...content, hash: prevHash };
      });
    });
    this.heads.appended(appended[appended.length - 1].seq);
  }
}
