import { randomBytes } from 'node:crypto';
import type { AuditEvent } from '../../src/audit/audit-chain.js';
import { AuditKeyring } from '../../src/audit/audit-keys.js';
import { AuditFilter, AuditRepository } from '../../src/audit/audit.repository.js';
import type { Page, PageRequest } from '../../src/database/prepared-reads.js';
import type { Tx } from '../../src/database/transactions.js';
import { Rollbackable, copy } from './in-memory-transactions.js';
import { asciiLowerCase } from '../../src/common/validators.js';

/** The audit trail in memory, rolled back with the transaction that appended to it. */
export class InMemoryAuditEvents extends AuditRepository implements Rollbackable {
  private events: AuditEvent[] = [];

  /** Every event, oldest first. */
  all(): AuditEvent[] {
    return copy(this.events);
  }

  snapshot(): unknown {
    return copy(this.events);
  }

  restore(snapshot: unknown): void {
    this.events = snapshot as AuditEvent[];
  }

  async lockChain(): Promise<void> {}

  async last(): Promise<Pick<AuditEvent, 'seq' | 'hash' | 'at' | 'keyId'> | undefined> {
    return this.events[this.events.length - 1];
  }

  async insert(_tx: Tx, events: readonly AuditEvent[]): Promise<void> {
    this.events.push(...events.map(copy));
  }

  async list(filter: AuditFilter, { page, size }: PageRequest): Promise<Page<AuditEvent>> {
    const matching = this.events
      .filter(
        (e) =>
          (filter.operator === undefined ||
            e.operatorId === filter.operator ||
            asciiLowerCase(e.operatorName) === asciiLowerCase(filter.operator)) &&
          (filter.action === undefined || e.action === filter.action) &&
          (filter.target === undefined || e.target === filter.target) &&
          (filter.from === undefined || e.at >= filter.from) &&
          (filter.to === undefined || e.at <= filter.to),
      )
      .reverse();
    return { rows: copy(matching.slice(page * size, (page + 1) * size)), total: matching.length };
  }

  async after(_tx: Tx, seq: number, limit: number): Promise<AuditEvent[]> {
    return copy(this.events.filter((e) => e.seq > seq).slice(0, limit));
  }

  async census(_tx: Tx, through: number): Promise<{ rows: number; lowest: number | null }> {
    const held = this.events.filter((e) => e.seq <= through).map((e) => e.seq);
    return { rows: held.length, lowest: held.length === 0 ? null : Math.min(...held) };
  }
}

/** An audit key that lives as long as the test. */
export function testAuditKeyring(): AuditKeyring {
  return new AuditKeyring(randomBytes(32));
}
