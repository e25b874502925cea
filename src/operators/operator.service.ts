import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { REDACTED } from '../audit/changes.js';
import { ApiError } from '../common/errors/api-error.js';
import { listingPage, type Listing } from '../common/http/envelope.js';
import { ChangeFeed } from '../database/change-feed.js';
import { isUniqueViolation } from '../database/dialect.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { OperatorCall } from '../access/operator-call.js';
import type { OperatorRole } from '../access/operator-role.js';
import { CreateOperatorDto, CreatedOperatorDto, OperatorViewDto } from './dto/operator.dto.js';
import { OPERATOR_TOKEN_CHANGED, OperatorTokensService } from './operator-tokens.service.js';
import { OperatorRecord, OperatorRepository } from './operator.repository.js';
import { generateOperatorToken, hashOperatorToken } from './operator-token.js';

/** What a seed file's operator did: created (with its token, shown once), changed, or nothing. */
export type SeededOperator =
  { outcome: 'created'; token: string } | { outcome: 'changed' | 'unchanged' };

/** Operators: created with a token shown once, listed, revoked at once on every instance. */
@Injectable()
export class OperatorService {
  /** The creation time given last: each operator is created at least 1 ms after the one before. */
  private lastCreatedAt = 0;

  constructor(
    private readonly operators: OperatorRepository,
    private readonly transactions: Transactions,
    private readonly tokens: OperatorTokensService,
    private readonly audit: AuditTrail,
    private readonly changes: ChangeFeed,
  ) {}

  async create(input: CreateOperatorDto, call?: OperatorCall): Promise<CreatedOperatorDto> {
    const token = generateOperatorToken();
    const id = randomUUID();
    await this.transactions.run(async (tx) => {
      await this.insert(tx, id, input.name, input.role, token);
      await this.audit.record(tx, call, {
        target: id,
        changes: {
          name: { old: null, new: input.name },
          role: { old: null, new: input.role },
          token: { old: null, new: REDACTED },
        },
      });
    });
    return { id, name: input.name, role: input.role, token };
  }

  async list(page: { page: number; size: number }): Promise<Listing<OperatorViewDto>> {
    const { rows, total } = await this.operators.list(page);
    return listingPage(rows.map(toView), page, total);
  }

  /** Revokes an operator's token; the next request with it is refused. Twice is a no-op. */
  async revoke(id: string, call?: OperatorCall): Promise<void> {
    const hash = await this.transactions.run(async (tx) => {
      const operator = await this.operators.find(tx, id);
      if (!operator) {
        throw new ApiError('NOT_FOUND', { message: `Operator ${id} not found.`, field: 'id' });
      }
      if (operator.revokedAt === null) {
        const at = new Date().toISOString();
        await this.operators.revoke(tx, id, at);
        await this.changes.announce(tx, OPERATOR_TOKEN_CHANGED, operator.tokenHash);
        await this.audit.record(tx, call, {
          target: id,
          changes: { revokedAt: { old: null, new: at } },
        });
      }
      return operator.tokenHash;
    });
    this.tokens.revoked(hash);
  }

  /**
   * Seed files: creates the operator of this name (its token returned, to be shown once) or
   * gives it the file's role, inside the caller's transaction.
   */
  async upsertFromSeed(tx: Tx, name: string, role: OperatorRole): Promise<SeededOperator> {
    const existing = await this.operators.findActiveByName(tx, name);
    if (!existing) {
      const token = generateOperatorToken();
      const id = randomUUID();
      await this.insert(tx, id, name, role, token);
      await this.audit.recordSystem(tx, 'seedOperator', {
        target: id,
        outcome: 201,
        changes: {
          name: { old: null, new: name },
          role: { old: null, new: role },
          token: { old: null, new: REDACTED },
        },
      });
      return { outcome: 'created', token };
    }
    if (existing.role === role) return { outcome: 'unchanged' };
    await this.operators.setRole(tx, existing.id, role);
    // Every instance forgets what it kept of the token, so the new role applies to the next request.
    await this.changes.announce(tx, OPERATOR_TOKEN_CHANGED, existing.tokenHash);
    await this.audit.recordSystem(tx, 'seedOperator', {
      target: existing.id,
      changes: { role: { old: existing.role, new: role } },
    });
    return { outcome: 'changed' };
  }

  private async insert(tx: Tx, id: string, name: string, role: OperatorRole, token: string) {
    const existing = await this.operators.findActiveByName(tx, name);
    if (existing) {
      throw new ApiError('CONFLICT', {
        message:
          existing.name === name
            ? `An operator named ${name} exists; revoke it first to reuse the name.`
            : `An operator named ${existing.name} exists, and names are compared regardless of case; revoke it first to reuse the name.`,
        field: 'name',
      });
    }
    try {
      await this.operators.insert(tx, {
        id,
        name,
        role,
        tokenHash: hashOperatorToken(token),
        createdAt: this.creationTime(),
        revokedAt: null,
        lastUsedAt: null,
      });
    } catch (error) {
      // Another instance created the name (in any case) at the same moment.
      if (!isUniqueViolation(error)) throw error;
      throw new ApiError('CONFLICT', {
        message: `An operator named ${name} (in some case) was just created; revoke it first to reuse the name.`,
        field: 'name',
      });
    }
  }

  /**
   * Now, to the millisecond, and after the last creation time this instance gave: operators
   * listed oldest first come in the order they were created, even within one second.
   */
  private creationTime(): Date {
    this.lastCreatedAt = Math.max(Date.now(), this.lastCreatedAt + 1);
    return new Date(this.lastCreatedAt);
  }
}

function toView(operator: OperatorRecord): OperatorViewDto {
  return {
    id: operator.id,
    name: operator.name,
    role: operator.role,
    createdAt: operator.createdAt.toISOString(),
    ...(operator.lastUsedAt === null
      ? {}
      : { lastUsedAt: new Date(operator.lastUsedAt).toISOString() }),
    ...(operator.revokedAt === null ? {} : { revokedAt: operator.revokedAt }),
  };
}
