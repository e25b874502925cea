import { hash, randomBytes } from 'node:crypto';

/** Operators' tokens: `op_` and 32 random bytes, shown once, kept only as their SHA-256. */
export const OPERATOR_TOKEN_PREFIX = 'op_';

export function generateOperatorToken(): string {
  return OPERATOR_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashOperatorToken(token: string): string {
  return hash('sha256', token, 'hex');
}
