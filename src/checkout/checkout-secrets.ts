import { createHash, randomBytes } from 'node:crypto';

/** What a checkout token starts with: `ct_` and 32 random bytes (256 bits), base64url. */
export const CHECKOUT_TOKEN_PREFIX = 'ct_';
const TOKEN_SHAPE = /^ct_[A-Za-z0-9_-]{43}$/;
const NONCE_SHAPE = /^[A-Za-z0-9_-]{32}$/;

/** A new checkout token: opaque to the merchant, stored only as its hash. */
export function newCheckoutToken(): string {
  return `${CHECKOUT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** A page's single-use nonce: 24 random bytes, base64url. */
export function newPageNonce(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether a text can be a token this service issued (anything else is refused unread). */
export function isTokenShaped(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

export function isNonceShaped(value: unknown): value is string {
  return typeof value === 'string' && NONCE_SHAPE.test(value);
}

/** SHA-256, hex: how tokens and nonces are stored. */
export function secretHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
