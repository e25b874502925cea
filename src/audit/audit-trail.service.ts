import { Injectable } from '@nestjs/common';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../http/caller.js';
import { RefusalRecorder, type RefusedOperatorRequest } from '../http/ports.js';
import {
  AuditContent,
  AuditEvent,
  BrokenLink,
  GENESIS_HASH,
  firstBrokenLink,
  hashOf,
} from './audit-chain.js';
import { AuditFilter, AuditRepository } from './audit.repository.js';
import type { Changes } from './changes.js';

/** Events read at a time when the chain is verified. */
const VERIFY_BATCH = 1000;

/** The operator of an event whose caller was not recognised. */
const UNKNOWN_OPERATOR = { id: null, name: 'unknown' } as const;

/** What a change records besides who made it: what it acted on and which fields changed. */
export interface ChangeRecord {
  target: string | null;
  changes: Changes;
  /** The status answered; the route's usual success status when absent. */
  outcome?: number;
}

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
 * transaction as the change, and one per refused operator request. Events form a hash chain
 * (each carries the SHA-256 of its content and of the previous event's hash), one chain across
 * every instance; no route changes or deletes an event.
 */
@Injectable()
export class AuditTrail extends RefusalRecorder {
  constructor(
    private readonly events: AuditRepository,
    private readonly transactions: Transactions,
  ) {
    super();
  }

  /**
   * Appends the event of a change, inside the transaction making it; nothing without an operator
   * request (a seed file, the retention job record their own or none).
   */
  async record(tx: Tx, call: OperatorCall | undefined, change: ChangeRecord): Promise<void> {
    if (!call) return;
    await this.append(tx, {
      operatorId: call.operator.id,
      operatorName: call.operator.name,
      action: call.action,
      target: change.target,
      outcome: change.outcome ?? call.status,
      requestId: call.requestId,
      changes: change.changes,
    });
  }

  /** Appends the event of a change made by the service itself (the retention job). */
  async recordSystem(tx: Tx, action: string, change: ChangeRecord): Promise<void> {
    await this.append(tx, {
      operatorId: 'system',
      operatorName: 'system',
      action,
      target: change.target,
      outcome: change.outcome ?? 200,
      requestId: null,
      changes: change.changes,
    });
  }

  /** Appends the event of a refused operator request, in a transaction of its own. */
  async refused(request: RefusedOperatorRequest): Promise<void> {
    const operator = request.operator ?? UNKNOWN_OPERATOR;
    await this.transactions.run((tx) =>
      this.append(tx, {
        operatorId: operator.id,
        operatorName: operator.name,
        action: request.action,
        target: request.target,
        outcome: request.outcome,
        requestId: request.requestId,
        changes: {},
      }),
    );
  }

  /** Events newest first, filtered, a page at a time. */
  list(filter: AuditFilter, page: { page: number; size: number }) {
    return this.transactions.run((tx) => this.events.list(tx, filter, page));
  }

  /** Recomputes the chain from its start; names the first link that does not hold. */
  async verify(): Promise<ChainVerification> {
    let previous: Pick<AuditEvent, 'seq' | 'hash'> | undefined;
    let checked = 0;
    for (;;) {
      const batch = await this.transactions.run((tx) =>
        this.events.after(tx, previous?.seq ?? 0, VERIFY_BATCH),
      );
      if (batch.length === 0) break;
      const broken = firstBrokenLink(batch, previous);
      if (broken) {
        return {
          valid: false,
          events: checked + batch.findIndex((e) => e.seq === broken.seq),
          brokenAt: broken,
        };
      }
      checked += batch.length;
      previous = batch[batch.length - 1];
    }
    return { valid: true, events: checked, headHash: previous?.hash ?? GENESIS_HASH };
  }

  private async append(
    tx: Tx,
    event: Omit<AuditContent, 'seq' | 'at' | 'prevHash'>,
  ): Promise<void> {
    await this.events.lockChain(tx);
    const last = await this.events.last(tx);
    const content: AuditContent = {
      seq: (last?.seq ?? 0) + 1,
      at: new Date().toISOString(),
      ...event,
      prevHash: last?.hash ?? GENESIS_HASH,
    };
    await this.events.insert(tx, { ...content, hash: hashOf(content) });
  }
}
