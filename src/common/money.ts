import { JsonNumberText } from './http/json-text.js';

/**
 * Exact money. Amounts are kept as integer minor units (cents) from the moment they are read,
 * so sums and presentation never meet a binary float artefact.
 */
export interface StoredMoney {
  amountMinor: number;
  currency: string;
}

export interface MoneyView {
  amount: number;
  currency: string;
  presentationAmount: string;
}

/** Largest accepted amount: 999,999,999,999.99 keeps minor units far inside 2^53. */
export const MAX_AMOUNT_MINOR = 99_999_999_999_999;

const DECIMAL_PATTERN = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Reads an amount given as a JSON number or a decimal string into minor units.
 * Returns undefined when the value is negative, not finite, has more than two decimals, or is
 * above the maximum. A number is judged on the text the client sent (JsonNumberText, kept by the
 * body parser whenever the text is not the number's shortest form), so `1.0000000000000000001`,
 * `1e-400` and `-0` are refused rather than rounded; any other number's text is its shortest
 * form, so 0.1 + 0.2 (0.30000000000000004) has more than two decimals and is refused too.
 */
export function toMinorUnits(value: unknown): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || Object.is(value, -0)) return undefined;
    text = String(value);
  } else if (value instanceof JsonNumberText) {
    text = value.text;
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) return undefined;
  const whole = match[1].replace(/^0+(?=\d)/, '');
  if (whole.length > 15) return undefined;
  const minor = Number(whole) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return minor <= MAX_AMOUNT_MINOR ? minor : undefined;
}

/** `EUR` + the amount with exactly two decimals and no separators, from minor units. */
export function presentationAmount(currency: string, amountMinor: number): string {
  const whole = Math.trunc(amountMinor / 100);
  const cents = amountMinor % 100;
  return `${currency}${whole}.${String(cents).padStart(2, '0')}`;
}

/** Major units as a JSON number: n / 100 is the double nearest the exact decimal. */
export function majorUnits(amountMinor: number): number {
  return amountMinor / 100;
}

export function moneyView(money: StoredMoney): MoneyView {
  return {
    amount: majorUnits(money.amountMinor),
    currency: money.currency,
    presentationAmount: presentationAmount(money.currency, money.amountMinor),
  };
}

export function addMoney(a: StoredMoney, b: StoredMoney): StoredMoney {
  if (a.currency !== b.currency) {
    throw new Error(`Cannot add ${a.currency} to ${b.currency}`);
  }
  return { amountMinor: a.amountMinor + b.amountMinor, currency: a.currency };
}

/**
 * The ISO 4217 currency codes of money in use, as the runtime's ICU (CLDR) knows them: what
 * `Intl.NumberFormat` can show. Funds, precious metals and the testing codes are not money a
 * customer pays in, and are left out by it.
 */
const ISO_4217_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Whether `value` is an ISO 4217 currency code (upper case, as stored). */
export function isIso4217Code(value: unknown): value is string {
  return typeof value === 'string' && ISO_4217_CODES.has(value);
}
