import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { sandboxKey } from '../common/key-file.js';

/** Standard Webhooks secrets: `whsec_` and the base64 of the key bytes. */
export const CALLBACK_SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
export const CALLBACK_SECRET_RULE = `must be ${CALLBACK_SECRET_PREFIX} followed by the base64 of 24 to 64 bytes`;

/** After a rotation, callbacks carry the old signature beside the new one for this long. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function generateCallbackSecret(): string {
  return CALLBACK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export function isCallbackSecret(value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith(CALLBACK_SECRET_PREFIX)) return false;
  const encoded = value.slice(CALLBACK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/** Stored form: version, IV, authentication tag and ciphertext, each base64. */
const FORMAT = 'v1';

/**
 * The merchants' callback secrets at rest: AES-256-GCM under CALLBACK_SECRET_KEY, so a copy of
 * the database alone does not let anyone sign callbacks.
 */
export class CallbackSecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('The callback secret key must be 32 bytes');
  }

  encrypt(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64')))
      .join(':');
  }

  /** Throws when the stored value was not encrypted under this key, or was altered. */
  decrypt(stored: string): string {
    const [format, iv, tag, data] = stored.split(':');
    if (format !== FORMAT || !iv || !tag || data === undefined) {
      throw new Error('Not an encrypted callback secret');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  }
}

/**
 * The key that encrypts the secrets: CALLBACK_SECRET_KEY when set (required in production and
 * with PostgreSQL, where every instance must read the same secrets). The SQLite sandbox keeps a
 * generated key in a file beside its database file (`callback-secret.key`); an in-memory database
 * gets a key that lives as long as the process.
 */
export function callbackSecretKey(
  configured: Buffer | undefined,
  sqliteFile: string | undefined,
): Buffer {
  return configured ?? sandboxKey(sqliteFile, 'callback-secret.key');
}
