import { MAX_AMOUNT_MINOR, type StoredMoney } from '../common/money.js';
import { atomicAmountFor, parsePrice } from './crypto-amount.js';

/** A rate as stored: a price of one unit in a fiat, and when it was put (epoch ms). */
export interface RateTerms {
  price: string;
  updatedAt: number;
}

/** Seconds since the rate was put (0 for one put in the future by a clock ahead of this one). */
export function ageSeconds(rate: Pick<RateTerms, 'updatedAt'>, now: number): number {
  return Math.max(0, Math.floor((now - rate.updatedAt) / 1000));
}

/** A rate older than `maxAgeSeconds` is stale and quotes nothing. */
export function isStale(
  rate: Pick<RateTerms, 'updatedAt'>,
  now: number,
  maxAgeSeconds: number,
): boolean {
  return now - rate.updatedAt > maxAgeSeconds * 1000;
}

/**
 * What to pay for `money` at `price` in an asset of `decimals`, in atomic units, rounded up: the
 * merchant never receives less than it asked (src/deposits/crypto-amount.ts).
 */
export function quotedAmount(money: StoredMoney, price: string, decimals: number): bigint {
  const parsed = parsePrice(price);
  if (!parsed) throw new RangeError('A stored price is a positive decimal');
  return atomicAmountFor(money, parsed, decimals);
}

/** A quote's time and whether a deposit was seen for it. */
export interface QuoteTimes {
  expiresAt: number;
  /** When a deposit of the quoted asset was first seen; null while none was. */
  seenAt: number | null;
}

/**
 * Whether a quote is still the one in force at `now`: while it holds, and for good once a
 * deposit was seen for it (the shopper paid what it asked). Otherwise a fresh quote, at the rate
 * in force then, replaces it for the same address.
 */
export function quoteStands(quote: QuoteTimes, now: number): boolean {
  return quote.seenAt !== null || now < quote.expiresAt;
}

/**
 * What `atomic` units of an asset were worth at `price`, in minor units of the price's fiat,
 * rounded down (never more than arrived): the crypto received, as the payment response's
 * `sourceMoney` states it in the session's currency.
 */
export function fiatMinorOf(atomic: bigint, price: string, decimals: number): number {
  const parsed = parsePrice(price);
  if (!parsed) throw new RangeError('A stored price is a positive decimal');
  const minor = (atomic * parsed.coefficient * 100n) / 10n ** BigInt(decimals + parsed.scale);
  return Number(minor > BigInt(MAX_AMOUNT_MINOR) ? BigInt(MAX_AMOUNT_MINOR) : minor);
}
