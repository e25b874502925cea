import { Injectable, Optional } from '@nestjs/common';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../access/operator-call.js';
import { RefusalRecorder, type RefusedOperatorRequest } from '../access/access-ports.js';
import {
  AuditContent,
  AuditEvent,
  BrokenLink,
  ChainCheck,
  GENESIS_HASH,
  linkOf,
} from './audit-chain.js';
import { AuditHeads } from './audit-heads.js';
import { AuditKeyring } from './audit-keys.js';
import type { PageRequest } from '../database/prepared-reads.js';
import { AuditFilter, AuditRepository } from './audit.repository.js';
import type { Changes } from './changes.js';

/** What an event records; the chain gives it its place, time, key and links. */
type EventContent = Omit<AuditContent, 'seq' | 'at' | 'prevHash' | 'keyId'>;

/** Events read at a time when the chain is verified. */
const VERIFY_BATCH = 1000;

/** The actor of an event whose caller was not recognised. */
const UNKNOWN_ACTOR = { kind: 'unknown', id: null, name: 'unknown' } as const;

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
export class AuditTrail extends RefusalRecorder {
  constructor(
    private readonly events: AuditRepository,
    private readonly transactions: Transactions,
    private readonly keys: AuditKeyring,
    @Optional() private readonly heads?: AuditHeads,
  ) {
    super();
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

  /** Appends the event of a refused operator request, in a transaction of its own. */
  async refused(request: RefusedOperatorRequest): Promise<void> {
    const actor = request.operator ?? UNKNOWN_ACTOR;
    await this.transactions.run((tx) =>
      this.append(tx, {
        actorKind: actor.kind,
        operatorId: actor.id,
        operatorName: actor.name,
        action: request.action,
        target: request.target,
        outcome: request.outcome,
        requestId: request.requestId,
        changes: {},
        reason: request.reason,
      }),
    );
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
    let last: AuditEvent | undefined;
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
    this.heads?.appended(appended[appended.length - 1].seq);
  }
}
