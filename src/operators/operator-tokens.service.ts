import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import { andThen, type MaybePromise } from '../common/maybe-async.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ChangeFeed } from '../database/change-feed.js';
import { ChangeFeedCache } from '../database/change-feed-cache.js';
import { Transactions } from '../database/transactions.js';
import type { OperatorIdentity } from '../access/operator-call.js';
import { ROLES_INCLUDING, type OperatorRole } from '../access/operator-role.js';
import { OperatorTokens, type OperatorRefusal } from '../access/access-ports.js';
import { ActiveOperator, OperatorRepository } from './operator.repository.js';
import { hashOperatorToken, OPERATOR_TOKEN_PREFIX } from './operator-token.js';

/** The change-feed kind that says an operator's token (its hash in the payload) was revoked or its role changed. */
export const OPERATOR_TOKEN_CHANGED = 'operator-token-changed';

/** The break-glass credential: ADMIN_TOKEN, with every role. */
export const ROOT: OperatorIdentity = { kind: 'root', id: 'root', name: 'root', role: 'admin' };

/**
 * The challenges of RFC 6750: a request without a bearer token gets the bare
 * challenge, one whose token does not work `invalid_token`, one whose role is too small
 * `insufficient_scope`.
 */
export const BEARER_CHALLENGE = {
  missing: 'Bearer',
  invalid: 'Bearer error="invalid_token"',
  insufficientScope: 'Bearer error="insufficient_scope"',
} as const;

/**
 * How long a resolved token is trusted without asking the database again. Revocations reach
 * every instance through the change feed at once; this is only the safety net behind it.
 */
export const TOKEN_CACHE_TTL_MS = 10_000;

/** `lastUsedAt` is written at most this often per operator. */
const LAST_USED_PRECISION_MS = 60_000;

const BEARER = /^Bearer (.+)$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Who an operator request comes from: ADMIN_TOKEN is `root`, with every role; an operator's token
 * (`op_…`, stored as its SHA-256) is that operator, with their role. Tokens are compared as
 * digests in constant time. Working tokens are kept in memory by hash; a revocation, on this
 * instance or another (the change feed), drops the entry at once, and while revocations could be
 * missed nothing kept is trusted.
 */
@Injectable()
export class OperatorTokensService extends OperatorTokens {
  private readonly logger = new Logger('Operators');
  private readonly root: Buffer | undefined;
  private readonly known: ChangeFeedCache<ActiveOperator>;
  private readonly lastWritten = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly operators: OperatorRepository,
    private readonly transactions: Transactions,
    changes: ChangeFeed,
  ) {
    super();
    this.root = config.adminToken === undefined ? undefined : digest(config.adminToken);
    this.known = new ChangeFeedCache(
      changes,
      OPERATOR_TOKEN_CHANGED,
      { maxBytes: 1024 * 1024, ttlMs: TOKEN_CACHE_TTL_MS },
      (hash) => operators.findActive(hash),
    );
  }

  admit(
    authorization: string | undefined,
    role: OperatorRole,
  ): MaybePromise<OperatorIdentity | OperatorRefusal> {
    const token = BEARER.exec(authorization ?? '')?.[1];
    if (token === undefined) return this.refuse('missing_token');
    if (this.root && timingSafeEqual(digest(token), this.root)) return ROOT;
    if (!token.startsWith(OPERATOR_TOKEN_PREFIX)) return this.refuse('unknown_token');
    const hash = hashOperatorToken(token);
    return andThen(
      this.known.resolve(hash),
      (operator): MaybePromise<OperatorIdentity | OperatorRefusal> => {
        if (!operator) return this.refuseUnknown(hash);
        const identity: OperatorIdentity = {
          kind: 'operator',
          id: operator.id,
          name: operator.name,
          role: operator.role,
        };
        this.markUsed(operator.id);
        if (!ROLES_INCLUDING[role].includes(operator.role)) {
          return {
            operator: identity,
            reason: 'insufficient_role',
            error: new ApiError('FORBIDDEN', {
              message: `This operator's role (${operator.role}) does not include ${role}.`,
              headers: { 'WWW-Authenticate': BEARER_CHALLENGE.insufficientScope },
            }),
          };
        }
        return identity;
      },
    );
  }

  /** Forgets a revoked token on this instance at once (the others hear of it on the feed). */
  revoked(tokenHash: string): void {
    this.known.forget(tokenHash);
  }

  /** A token that opens nothing: a revoked operator's (named in the refusal), or nobody's. */
  private async refuseUnknown(tokenHash: string): Promise<OperatorRefusal> {
    const revoked = await this.operators.findRevoked(tokenHash);
    if (!revoked) return this.refuse('unknown_token');
    return this.refuse('revoked', { kind: 'operator', id: revoked.id, name: revoked.name });
  }

  /**
   * A request without a working token: 401 with the challenge of RFC 6750 (docs/operators.md,
   * "Refused requests"; with no ADMIN_TOKEN configured, 403 instead: the API is then closed to
   * everyone but operators with their own working tokens).
   */
  private refuse(
    reason: 'missing_token' | 'unknown_token' | 'revoked',
    operator?: OperatorIdentity,
  ): OperatorRefusal {
    if (!this.root) {
      return {
        reason,
        operator,
        error: new ApiError('FORBIDDEN', {
          message:
            reason === 'missing_token'
              ? "No ADMIN_TOKEN is configured: the operator API opens to operators' tokens only."
              : "No ADMIN_TOKEN is configured, and this is no operator's working token.",
        }),
      };
    }
    return {
      reason,
      operator,
      error:
        reason === 'missing_token'
          ? new ApiError('UNAUTHORIZED', {
              message: 'The operator API needs "Authorization: Bearer <token>".',
              field: 'authorization',
              headers: { 'WWW-Authenticate': BEARER_CHALLENGE.missing },
            })
          : new ApiError('UNAUTHORIZED', {
              message:
                'This bearer token is unknown or revoked: it does not open the operator API.',
              field: 'authorization',
              headers: { 'WWW-Authenticate': BEARER_CHALLENGE.invalid },
            }),
    };
  }

  /** Records when an operator last used their token, to the minute, never failing the request. */
  private markUsed(id: string): void {
    const now = Date.now();
    if (now - (this.lastWritten.get(id) ?? 0) < LAST_USED_PRECISION_MS) return;
    this.lastWritten.set(id, now);
    this.transactions
      .run((tx) => this.operators.touch(tx, id, now), { ahead: true })
      .catch((error: unknown) =>
        this.logger.warn({ err: String(error) }, 'Could not record when an operator was last seen'),
      );
  }
}
