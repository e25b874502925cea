import type { Page, PageRequest } from '../../src/database/prepared-reads.js';
import type { Tx } from '../../src/database/transactions.js';
import type { OperatorRole } from '../../src/access/operator-role.js';
import {
  ActiveOperator,
  OperatorRecord,
  OperatorRepository,
} from '../../src/operators/operator.repository.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

export class InMemoryOperators extends OperatorRepository implements Rollbackable {
  private state = new Map<string, OperatorRecord>();

  async findActive(tokenHash: string): Promise<ActiveOperator | undefined> {
    const found = this.all().find((o) => o.tokenHash === tokenHash && o.revokedAt === null);
    return found && { id: found.id, name: found.name, role: found.role };
  }

  async findRevoked(tokenHash: string): Promise<{ id: string; name: string } | undefined> {
    const found = this.all().find((o) => o.tokenHash === tokenHash && o.revokedAt !== null);
    return found && { id: found.id, name: found.name };
  }

  async find(_tx: Tx, id: string): Promise<OperatorRecord | undefined> {
    return copy(this.state.get(id));
  }

  async findActiveByName(_tx: Tx, name: string): Promise<OperatorRecord | undefined> {
    return copy(
      this.all().find((o) => o.name.toLowerCase() === name.toLowerCase() && o.revokedAt === null),
    );
  }

  async insert(_tx: Tx, operator: OperatorRecord): Promise<void> {
    this.state.set(operator.id, copy(operator));
  }

  async setRole(_tx: Tx, id: string, role: OperatorRole): Promise<void> {
    this.state.get(id)!.role = role;
  }

  async revoke(_tx: Tx, id: string, at: string): Promise<void> {
    this.state.get(id)!.revokedAt = at;
  }

  async touch(_tx: Tx, id: string, at: number): Promise<void> {
    this.state.get(id)!.lastUsedAt = at;
  }

  async list({ page, size }: PageRequest): Promise<Page<OperatorRecord>> {
    const all = this.all();
    return { rows: copy(all.slice(page * size, page * size + size)), total: all.length };
  }

  /** Every operator, oldest first. */
  all(): OperatorRecord[] {
    return [...this.state.values()];
  }

  snapshot(): unknown {
    return new Map([...this.state].map(([id, o]) => [id, { ...o }]));
  }

  restore(snapshot: unknown): void {
    this.state = snapshot as Map<string, OperatorRecord>;
  }
}
