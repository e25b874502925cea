import { hash, randomBytes } from 'node:crypto';

/** Plaintext keys carry 32 random bytes (256 bits); seed files may bring their own, ≥ 32 characters. */
export const API_KEY_PREFIX = 'gw_';
export const MIN_API_KEY_LENGTH = 32;
export const MAX_API_KEY_LENGTH = 256;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Keys are stored and looked up only by this hash. */
export function hashApiKey(plaintext: string): string {
  return hash('sha256', plaintext, 'hex');
}
