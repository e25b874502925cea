import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import type { OperatorRole } from '../access/operator-role.js';
import { asciiLowerCase } from '../common/validators.js';
import { Operator } from './operator.entity.js';
import { ActiveOperator, OperatorRecord, OperatorRepository } from './operator.repository.js';

const ACTIVE_OPERATOR_SQL =
  'SELECT id, name, role FROM operator WHERE token_hash = ? AND revoked_at IS NULL';
const REVOKED_OPERATOR_SQL =
  'SELECT id, name FROM operator WHERE token_hash = ? AND revoked_at IS NOT NULL';

@Injectable()
export class TypeOrmOperatorRepository extends OperatorRepository {
  constructor(private readonly reads: PreparedReads) {
    super();
  }

  findActive(tokenHash: string): Promise<ActiveOperator | undefined> {
    return this.reads.first<ActiveOperator>(ACTIVE_OPERATOR_SQL, [tokenHash]);
  }

  findRevoked(tokenHash: string): Promise<{ id: string; name: string } | undefined> {
    return this.reads.first<{ id: string; name: string }>(REVOKED_OPERATOR_SQL, [tokenHash]);
  }

  async find(tx: Tx, id: string): Promise<OperatorRecord | undefined> {
    return toRecord(await managerOf(tx).findOneBy(Operator, { id }));
  }

  async findActiveByName(tx: Tx, name: string): Promise<OperatorRecord | undefined> {
    const row = await managerOf(tx).findOneBy(Operator, {
      nameKey: nameKeyOf(name),
      revokedAt: IsNull(),
    });
    return toRecord(row);
  }

  async insert(tx: Tx, operator: OperatorRecord): Promise<void> {
    await managerOf(tx).insert(Operator, { ...operator, nameKey: nameKeyOf(operator.name) });
  }

  async setRole(tx: Tx, id: string, role: OperatorRole): Promise<void> {
    await managerOf(tx).update(Operator, { id }, { role });
  }

  async revoke(tx: Tx, id: string, at: string): Promise<void> {
    await managerOf(tx).update(Operator, { id }, { revokedAt: at });
  }

  async touch(tx: Tx, id: string, at: number): Promise<void> {
    await managerOf(tx).update(Operator, { id }, { lastUsedAt: at });
  }

  async list(
    tx: Tx,
    { page, size }: { page: number; size: number },
  ): Promise<{ rows: OperatorRecord[]; total: number }> {
    const [rows, total] = await managerOf(tx).findAndCount(Operator, {
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page * size,
      take: size,
    });
    return { rows: rows.map((row) => toRecord(row)!), total };
  }
}

/** Names are ASCII (OPERATOR_NAME_PATTERN): lower-casing folds every case alike. */
function nameKeyOf(name: string): string {
  return asciiLowerCase(name);
}

function toRecord(row: Operator | null): OperatorRecord | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    tokenHash: row.tokenHash,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
    // PostgreSQL hands bigint columns over as text.
    lastUsedAt: row.lastUsedAt === null ? null : Number(row.lastUsedAt),
  };
}
