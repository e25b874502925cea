import { createHmac, hkdfSync } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { maskAccountNumber } from '../common/masking.js';
import { databaseFileOf } from '../database/dialect.js';
import { callbackSecretKey } from '../merchants/callback-secrets.js';

/** What HKDF is told the key is for: the digest key is of no use for anything else. */
const DIGEST_INFO = 'checkout destinationAccountNumber digest v1';

/**
 * The destination account of an init-iframe request as stored: masked like `accountNumber`
 * (an account number is never kept in clear), and a keyed digest of the number as sent, so that
 * a repeated request (the same init-iframe request again answers the same session) can still be
 * told from one with another number (a 409) without the number. The digest is an HMAC-SHA-256 under a key derived (HKDF) from the callback secret key:
 * an account number has few unknown digits once masked, and a plain hash of it could be reversed
 * by trying them all.
 */
export class AccountNumbers {
  private readonly key: Buffer;

  constructor(secretKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), DIGEST_INFO, 32));
  }

  /** Keyed from the callback secret key the service uses with this database (callbackSecretKey). */
  static of(configured: Buffer | undefined, dataSource: DataSource): AccountNumbers {
    return new AccountNumbers(callbackSecretKey(configured, databaseFileOf(dataSource)));
  }

  stored(number: string): { masked: string; digest: string } {
    return {
      masked: maskAccountNumber(number),
      digest: createHmac('sha256', this.key).update(number, 'utf8').digest('base64url'),
    };
  }
}
