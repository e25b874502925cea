import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { EntityColumns } from '../database/entity-columns.js';
import { type Page, type PageRequest, PreparedReads } from '../database/prepared-reads.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import type { OperatorRole } from '../access/operator-role.js';
import { asciiLowerCase } from '../common/validators.js';
import { Operator } from './operator.entity.js';
import { ActiveOperator, OperatorRecord, OperatorRepository } from './operator.repository.js';

/** What an OperatorRecord is made of. */
const RECORD = [
  'id',
  'name',
  'role',
  'tokenHash',
  'createdAt',
  'revokedAt',
  'lastUsedAt',
] as const satisfies readonly (keyof Operator & keyof OperatorRecord)[];

@Injectable()
export class TypeOrmOperatorRepository extends OperatorRepository {
  /** Who a working token is: on every operator request, a fixed statement. */
  private readonly activeSql: string;
  /** Who a revoked token was. */
  private readonly revokedSql: string;

  constructor(
    private readonly reads: PreparedReads,
    @InjectDataSource() dataSource: DataSource,
  ) {
    super();
    const operators = new EntityColumns(dataSource, Operator);
    const byToken = `WHERE ${operators.name('tokenHash')} = ? AND ${operators.name('revokedAt')}`;
    this.activeSql = `${operators.select(['id', 'name', 'role'])} ${byToken} IS NULL`;
    this.revokedSql = `${operators.select(['id', 'name'])} ${byToken} IS NOT NULL`;
  }

  findActive(tokenHash: string): Promise<ActiveOperator | undefined> {
    return this.reads.first<ActiveOperator>(this.activeSql, [tokenHash]);
  }

  findRevoked(tokenHash: string): Promise<{ id: string; name: string } | undefined> {
    return this.reads.first<{ id: string; name: string }>(this.revokedSql, [tokenHash]);
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

  async list(page: PageRequest): Promise<Page<OperatorRecord>> {
    const read = this.reads.of(Operator, 'o', RECORD);
    read.query.orderBy('o.createdAt').addOrderBy('o.id');
    return read.page(page);
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
    lastUsedAt: row.lastUsedAt,
  };
}
