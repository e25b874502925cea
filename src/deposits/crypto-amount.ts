import { StoredMoney } from '../common/money.js';

/**
 * Exact crypto amounts: an asset's amount is a BigInt of its atomic units (satoshi, wei, sun,
 * a token's smallest unit), a price a decimal held as an integer and a scale. No binary float
 * meets either.
 */

/** Fiat money is held in minor units of two decimals (StoredMoney). */
const FIAT_MINOR_PER_MAJOR = 100n;

/** The most digits a price may have before its point, and after it. */
export const PRICE_INTEGER_DIGITS = 18;
export const PRICE_FRACTION_DIGITS = 18;

/**
 * The most decimals an asset may have. With the largest money and the smallest price, an amount
 * then has at most 66 digits: inside a uint256 (78 digits), which every chain's amounts fit.
 */
export const MAX_ASSET_DECIMALS = 36;

/** A positive decimal: coefficient × 10^-scale. */
export interface DecimalPrice {
  readonly coefficient: bigint;
  readonly scale: number;
}

const PRICE_TEXT = new RegExp(
  String.raw`^(0|[1-9]\d{0,${PRICE_INTEGER_DIGITS - 1}})(?:\.(\d{1,${PRICE_FRACTION_DIGITS}}))?$`,
);

/** An atomic amount as a watcher reports it: a decimal integer above 0 that fits a uint256. */
const ATOMIC_TEXT = /^[1-9]\d{0,77}$/;
const UINT256_MAX = (1n << 256n) - 1n;

/**
 * A price as an operator writes it: digits, optionally a point and more digits, above zero, at
 * most PRICE_INTEGER_DIGITS before the point and PRICE_FRACTION_DIGITS after; no sign, exponent,
 * separator, white space or leading zero. Undefined for anything else.
 */
export function parsePrice(text: unknown): DecimalPrice | undefined {
  if (typeof text !== 'string') return undefined;
  const match = PRICE_TEXT.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  const coefficient = BigInt(match[1] + fraction);
  return coefficient > 0n ? { coefficient, scale: fraction.length } : undefined;
}

/** A reported amount of atomic units (`"10712346"`), or undefined. */
export function parseAtomicUnits(text: unknown): bigint | undefined {
  if (typeof text !== 'string' || !ATOMIC_TEXT.test(text)) return undefined;
  const amount = BigInt(text);
  return amount <= UINT256_MAX ? amount : undefined;
}

/**
 * What to pay for `money` in an asset of `decimals` priced at `price` (fiat per whole unit of the
 * asset), in atomic units, rounded up so the merchant never receives less than it asked:
 * ceil(amountMinor × 10^(scale + decimals) / (coefficient × 100)).
 */
export function atomicAmountFor(money: StoredMoney, price: DecimalPrice, decimals: number): bigint {
  if (!Number.isSafeInteger(money.amountMinor) || money.amountMinor <= 0) {
    throw new RangeError('Only a positive amount of money is quoted');
  }
  if (price.coefficient <= 0n || !isScale(price.scale, PRICE_FRACTION_DIGITS)) {
    throw new RangeError('A price is positive, with at most the allowed decimals');
  }
  if (!isScale(decimals, MAX_ASSET_DECIMALS)) {
    throw new RangeError(`An asset has 0 to ${MAX_ASSET_DECIMALS} decimals`);
  }
  const numerator = BigInt(money.amountMinor) * 10n ** BigInt(price.scale + decimals);
  const denominator = price.coefficient * FIAT_MINOR_PER_MAJOR;
  const quotient = numerator / denominator;
  return numerator % denominator === 0n ? quotient : quotient + 1n;
}

/**
 * Atomic units as a decimal of whole units, without trailing zeros: (10712346n, 6) is
 * "10.712346", (150000000n, 8) is "1.5", (0n, 18) is "0". Also writes a DecimalPrice back
 * (coefficient, scale).
 */
export function formatAtomicUnits(amount: bigint, decimals: number): string {
  if (amount < 0n) throw new RangeError('An amount is not negative');
  if (!isScale(decimals, MAX_ASSET_DECIMALS)) {
    throw new RangeError(`An asset has 0 to ${MAX_ASSET_DECIMALS} decimals`);
  }
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

function isScale(value: number, max: number): boolean {
  return Number.isSafeInteger(value) && value >= 0 && value <= max;
}
