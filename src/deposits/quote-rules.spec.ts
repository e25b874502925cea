import { ageSeconds, fiatMinorOf, isStale, quotedAmount, quoteStands } from './quote-rules.js';

const EUR = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });

describe('quote rules', () => {
  it('quotes money ÷ price in atomic units, exact when the price divides it', () => {
    // 10.00 EUR at 0.5 EUR per unit of a 6-decimal token: 20 units.
    expect(quotedAmount(EUR(1000), '0.5', 6)).toBe(20_000_000n);
    // 90,000.00 EUR at 90,000 EUR per BTC: 1 BTC.
    expect(quotedAmount(EUR(9_000_000), '90000', 8)).toBe(100_000_000n);
  });

  it('rounds up to the asset’s smallest unit when it does not divide: never less than asked', () => {
    // 10.00 EUR at 0.92 EUR: 10.869565217… units → 10.869566.
    expect(quotedAmount(EUR(1000), '0.92', 6)).toBe(10_869_566n);
    // 0.01 EUR at 3 EUR per ETH (18 decimals): 0.00333… ETH, the last wei rounded up.
    expect(quotedAmount(EUR(1), '3', 18)).toBe(3_333_333_333_333_334n);
    // The quote is worth at least the money: amount × price ≥ money.
    const amount = quotedAmount(EUR(1234567), '0.9337', 6);
    expect(amount * 9337n * 100n >= 1234567n * 10n ** 6n * 10n ** 4n).toBe(true);
    expect((amount - 1n) * 9337n * 100n < 1234567n * 10n ** 6n * 10n ** 4n).toBe(true);
  });

  it('takes huge and tiny amounts without a float in sight', () => {
    // The largest money at the smallest price, in an asset of 36 decimals: 66 digits.
    expect(quotedAmount(EUR(99_999_999_999_999), '0.000000000000000001', 36)).toBe(
      99_999_999_999_999n * 10n ** 52n,
    );
    expect(quotedAmount(EUR(1), '999999999999999999', 0)).toBe(1n);
  });

  it('refuses a stored price that is not a positive decimal', () => {
    expect(() => quotedAmount(EUR(100), '0', 6)).toThrow(RangeError);
    expect(() => quotedAmount(EUR(100), '1e3', 6)).toThrow(RangeError);
  });

  it('calls a rate stale past its maximum age, not at it', () => {
    const rate = { updatedAt: 1_000_000 };
    expect(isStale(rate, 1_000_000 + 300_000, 300)).toBe(false);
    expect(isStale(rate, 1_000_000 + 300_001, 300)).toBe(true);
    expect(ageSeconds(rate, 1_000_000 + 299_999)).toBe(299);
    expect(ageSeconds(rate, 999_000)).toBe(0);
  });

  it('keeps a quote until it expires, and for good once a deposit was seen', () => {
    expect(quoteStands({ expiresAt: 2000, seenAt: null }, 1999)).toBe(true);
    expect(quoteStands({ expiresAt: 2000, seenAt: null }, 2000)).toBe(false);
    expect(quoteStands({ expiresAt: 2000, seenAt: 1500 }, 10_000_000)).toBe(true);
  });
});

describe('the value of a deposit in fiat', () => {
  it('is the atomic amount at the quoted price, rounded down to the cent', () => {
    // 10.869566 USDT at 0.92 EUR: 10.00000072 EUR → 10.00.
    expect(fiatMinorOf(10_869_566n, '0.92', 6)).toBe(1000);
    // 12 USDT at 0.92: 11.04 EUR exactly.
    expect(fiatMinorOf(12_000_000n, '0.92', 6)).toBe(1104);
    // 1 wei at 3000 EUR per ETH: nothing.
    expect(fiatMinorOf(1n, '3000', 18)).toBe(0);
  });

  it('never exceeds the largest amount money can hold', () => {
    expect(fiatMinorOf(10n ** 40n, '999999999', 0)).toBe(99_999_999_999_999);
  });
});
