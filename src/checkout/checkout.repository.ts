import type { StoredMoney } from '../common/money.js';
import type { Tx } from '../database/transactions.js';

/** The customer as init-iframe gives them: personal data. */
export interface CheckoutClient {
  firstName: string;
  lastName: string;
  phone: string;
  dialingCode: string;
  nationality: string;
  emailAddress: string;
  dob: string;
}

/** The customer's address: personal data. */
export interface CheckoutAddress {
  addressLine1: string;
  countryCode: string;
  city: string;
}

/** The fields of a stored request that hold personal data: null once it was erased. */
export const PERSONAL_CHECKOUT_FIELDS = ['client', 'address', 'destinationAccountNumber'] as const;

/**
 * An init-iframe request as stored, normalised (money in minor units, codes upper case): two
 * requests are the same when their stored forms are. `client`, `address` and
 * `destinationAccountNumber` (in the sandbox the payment response's `accountNumber`, a personal
 * field) are null once the personal data was erased, and the account's digest with them.
 */
export interface CheckoutRequest {
  money: StoredMoney;
  client: CheckoutClient | null;
  address: CheckoutAddress | null;
  clientReference: string;
  traceId: string;
  description: string;
  /** Masked like `accountNumber`: the number is never kept in clear (see AccountNumbers). */
  destinationAccountNumber: string | null;
  /** A keyed digest of the number as sent: tells a repeated request from another one. */
  destinationAccountDigest: string | null;
  brandId: string;
  returnUrl: string;
  errorUrl: string | null;
  languagePreference: string | null;
}

export interface CheckoutRecord {
  validationKey: string;
  merchantId: string;
  request: CheckoutRequest;
  /** When the last token issued expires (epoch ms). */
  expiresAt: number;
  /** `open` while its session may still expire; `ended` once it left PENDING. */
  state: 'open' | 'ended';
  /** `CURRENCY/PROTOCOL` once chosen. */
  chosenPair: string | null;
  pageNonceHash: string | null;
  personalDataErasedAt: number | null;
}

/** A checkout found by one of its tokens, and until when that token opens it. */
export interface TokenCheckout {
  checkout: CheckoutRecord;
  tokenExpiresAt: number;
}

/** Storage of checkouts and their tokens (hashes only). */
export abstract class CheckoutRepository {
  abstract findIn(tx: Tx, validationKey: string): Promise<CheckoutRecord | undefined>;

  /**
   * Inserts the checkout unless one with its key exists; false then. Where another transaction
   * inserted that key and has not ended (PostgreSQL), waits for it: false once it committed, so
   * what the caller reads next is what it wrote.
   */
  abstract insert(tx: Tx, checkout: CheckoutRecord): Promise<boolean>;

  /** Stores a token's hash; the checkout's expiry moves to the token's when that is later. */
  abstract addToken(
    tx: Tx,
    tokenHash: string,
    validationKey: string,
    expiresAt: number,
  ): Promise<void>;

  /** The checkout a token opens, read afresh (outside any transaction). */
  abstract findByToken(tokenHash: string): Promise<TokenCheckout | undefined>;

  abstract findByTokenIn(tx: Tx, tokenHash: string): Promise<TokenCheckout | undefined>;

  /**
   * Replaces the page's nonce: only while it is still `expected` (a single use: of two actions
   * with one nonce, one finds it replaced), or whatever it was when `expected` is null. False when
   * the nonce had changed.
   */
  abstract replaceNonce(
    tx: Tx,
    validationKey: string,
    expected: string | null,
    next: string,
  ): Promise<boolean>;

  abstract setChosenPair(tx: Tx, validationKey: string, pair: string): Promise<void>;

  abstract setState(tx: Tx, validationKey: string, state: 'open' | 'ended'): Promise<void>;

  /** The expiry looks at the open checkout again at `until` (its session is held open). */
  abstract postpone(tx: Tx, validationKey: string, until: number): Promise<void>;

  /**
   * Keys of open checkouts whose last token expired at `now` or before, at most `limit`; locked
   * for this transaction where several instances could claim the same ones (PostgreSQL skips
   * those another holds).
   */
  abstract dueForExpiry(tx: Tx, now: number, limit: number): Promise<string[]>;

  /**
   * Keys of checkouts still holding personal data whose last token expired at `before` or
   * earlier, at most `limit`; locked like dueForExpiry.
   */
  abstract dueForErasure(tx: Tx, before: number, limit: number): Promise<string[]>;

  /** Stores the request without its personal data, and when it was erased. */
  abstract storeErasure(
    tx: Tx,
    validationKey: string,
    request: CheckoutRequest,
    erasedAt: number,
  ): Promise<void>;
}
