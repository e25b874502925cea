import type { ApiError } from '../common/errors/api-error.js';
import type { MaybePromise } from '../common/maybe-async.js';
import type { OperatorIdentity } from './operator-call.js';

/**
 * What the access policy needs from the features, as small contracts they provide: merchants
 * resolve keys, operators open their routes with tokens, the audit trail records refusals.
 */

/** A merchant's API key once resolved. */
export interface ResolvedKey {
  keyId: string;
  merchantId: string;
}

/** Resolves a merchant API key (provided by the merchants feature). */
export abstract class KeyResolver {
  /** The key's merchant, or undefined for an unknown or revoked key; at once when it can. */
  abstract resolve(plaintext: string): MaybePromise<ResolvedKey | undefined>;
}

/** Decides whether an `Authorization` header opens an operator route that needs `role`. */
export abstract class OperatorTokens {
  /**
   * The operator, when the header carries a working token with the role (or a stronger one);
   * else the refusal (RFC 6750: 401 without a token or with an unknown or revoked one, 403 with
   * too little power), with the operator when the token was theirs. At once when the token is in
   * memory.
   */
  abstract admit(
    authorization: string | undefined,
    role: string,
  ): MaybePromise<OperatorIdentity | OperatorRefusal>;
}

/**
 * Why an operator request was refused, as the audit trail records it: no bearer token, a token
 * nobody holds, a revoked operator's token, or a working token whose role is too small.
 */
export const REFUSAL_REASONS = [
  'missing_token',
  'unknown_token',
  'revoked',
  'insufficient_role',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** An operator request refused, why, and whose token it was when it was an operator's. */
export interface OperatorRefusal {
  error: ApiError;
  reason: RefusalReason;
  /** The operator whose token it was (a working or a revoked one); absent when nobody's. */
  operator?: OperatorIdentity;
}

/** A refused operator request, as the audit trail records it. */
export interface RefusedOperatorRequest {
  operator?: OperatorIdentity;
  reason: RefusalReason;
  /** The route's operationId, or `unknownRoute` when no route serves the path. */
  action: string;
  target: string | null;
  /** The status of the refusal (401, 403, or 429 past the limit). */
  outcome: number;
  requestId: string;
  /** The caller's address as the limits count it (`ip:<address>`). */
  address: string;
}

/** Records refused operator requests (provided by the audit trail). */
export abstract class RefusalRecorder {
  abstract refused(request: RefusedOperatorRequest): Promise<void>;
}
