import { MAX_AMOUNT_MINOR, StoredMoney } from '../common/money.js';
import {
  atomicAmountFor,
  DecimalPrice,
  formatAtomicUnits,
  MAX_ASSET_DECIMALS,
  parseAtomicUnits,
  parsePrice,
} from './crypto-amount.js';

const eur = (amountMinor: number): StoredMoney => ({ amountMinor, currency: 'EUR' });
const price = (text: string): DecimalPrice => parsePrice(text)!;
const MAX_PRICE = '999999999999999999.999999999999999999';
const MIN_PRICE = '0.000000000000000001';

describe('prices', () => {
  it.each([
    ['1', 1n, 0],
    ['0.5', 5n, 1],
    ['65432.10', 6543210n, 2],
    [MIN_PRICE, 1n, 18],
    ['999999999999999999', 999999999999999999n, 0],
    [MAX_PRICE, 999999999999999999999999999999999999n, 18],
  ])('reads %s exactly', (text, coefficient, scale) => {
    expect(parsePrice(text)).toEqual({ coefficient, scale });
  });

  it.each([
    '0',
    '0.0',
    '0.000000000000000000',
    '-1',
    '+1',
    '1e3',
    '1.',
    '.5',
    '01',
    '00.5',
    ' 1',
    '1 ',
    '1,000',
    '1_000',
    '0x10',
    '1.0000000000000000001',
    '1000000000000000000',
    '١',
    'NaN',
    'Infinity',
    '',
  ])('refuses %j', (text) => {
    expect(parsePrice(text)).toBeUndefined();
  });

  it('refuses what is not text', () => {
    for (const value of [1.5, 2n, null, undefined, { coefficient: 1n, scale: 0 }, ['1']]) {
      expect(parsePrice(value)).toBeUndefined();
    }
  });

  it('writes a price back in its shortest exact form', () => {
    expect(formatAtomicUnits(price('65432.10').coefficient, price('65432.10').scale)).toBe(
      '65432.1',
    );
    expect(formatAtomicUnits(price(MIN_PRICE).coefficient, price(MIN_PRICE).scale)).toBe(MIN_PRICE);
  });
});

/** Expected amounts computed apart, with Python's fractions: ceil(Fraction(minor, 100) / Fraction(price) * 10**decimals). */
describe('the amount to pay', () => {
  it('is exact when the price divides the money', () => {
    expect(atomicAmountFor(eur(10000), price('2000'), 18)).toBe(50000000000000000n);
    expect(atomicAmountFor(eur(1000), price('0.5'), 6)).toBe(20000000n);
    expect(atomicAmountFor(eur(1000), price('0.5'), 0)).toBe(20n);
  });

  it('is rounded up when it does not', () => {
    expect(atomicAmountFor(eur(1000), price('3'), 6)).toBe(3333334n);
    expect(atomicAmountFor(eur(1000), price('3'), 0)).toBe(4n);
    expect(atomicAmountFor(eur(1000), price('0.9335'), 6)).toBe(10712373n);
    expect(atomicAmountFor(eur(1999), price('65432.10'), 8)).toBe(30551n);
  });

  it('keeps 18 decimals and a price with 18 decimals exact', () => {
    expect(atomicAmountFor(eur(100), price('0.000012345678901234'), 18)).toBe(
      81000000729003732561068n,
    );
  });

  it('is exact for the largest money at the smallest price', () => {
    expect(atomicAmountFor(eur(MAX_AMOUNT_MINOR), price(MIN_PRICE), 18)).toBe(
      999999999999990000000000000000000000000000000000n,
    );
    expect(atomicAmountFor(eur(MAX_AMOUNT_MINOR), price(MIN_PRICE), MAX_ASSET_DECIMALS)).toBe(
      999999999999990000000000000000000000000000000000000000000000000000n,
    );
    expect(atomicAmountFor(eur(MAX_AMOUNT_MINOR), price(MAX_PRICE), 18)).toBe(1000000000000n);
  });

  it('is at least one atomic unit for the smallest money at the largest price', () => {
    for (const decimals of [0, 8, 18]) {
      expect(atomicAmountFor(eur(1), price(MAX_PRICE), decimals)).toBe(1n);
    }
    expect(atomicAmountFor(eur(1), price('3'), 6)).toBe(3334n);
  });

  it('is the least amount worth the money, for any money, price and decimals', () => {
    let seed = 48;
    const next = (below: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % below;
    };
    for (let round = 0; round < 2000; round++) {
      const minor = 1 + next(1_000_000_000);
      const quoted = { coefficient: BigInt(1 + next(1_000_000_000)), scale: next(19) };
      const decimals = next(MAX_ASSET_DECIMALS + 1);
      const amount = atomicAmountFor(eur(minor), quoted, decimals);
      // amount × price ≥ money > (amount − 1) × price, both sides scaled to integers.
      const money = BigInt(minor) * 10n ** BigInt(quoted.scale + decimals);
      expect(amount * quoted.coefficient * 100n >= money).toBe(true);
      expect((amount - 1n) * quoted.coefficient * 100n < money).toBe(true);
    }
  });

  it('refuses no money, a bad price and impossible decimals', () => {
    expect(() => atomicAmountFor(eur(0), price('1'), 8)).toThrow(RangeError);
    expect(() => atomicAmountFor(eur(-1), price('1'), 8)).toThrow(RangeError);
    expect(() => atomicAmountFor(eur(1.5), price('1'), 8)).toThrow(RangeError);
    expect(() => atomicAmountFor(eur(1), { coefficient: 0n, scale: 0 }, 8)).toThrow(RangeError);
    expect(() => atomicAmountFor(eur(1), { coefficient: 1n, scale: 19 }, 8)).toThrow(RangeError);
    for (const decimals of [-1, 0.5, MAX_ASSET_DECIMALS + 1]) {
      expect(() => atomicAmountFor(eur(1), price('1'), decimals)).toThrow(RangeError);
    }
  });
});

describe('atomic units', () => {
  it.each([
    [0n, 8, '0'],
    [1n, 18, '0.000000000000000001'],
    [10712346n, 6, '10.712346'],
    [150000000n, 8, '1.5'],
    [100000000n, 8, '1'],
    [123n, 0, '123'],
    [50000000000000000n, 18, '0.05'],
    [999999999999990000000000000000000000000000000000n, 18, '999999999999990000000000000000'],
  ])('write %s with %i decimals as %s', (amount, decimals, text) => {
    expect(formatAtomicUnits(amount, decimals)).toBe(text);
  });

  it('refuse a negative amount or impossible decimals', () => {
    expect(() => formatAtomicUnits(-1n, 8)).toThrow(RangeError);
    expect(() => formatAtomicUnits(1n, -1)).toThrow(RangeError);
    expect(() => formatAtomicUnits(1n, MAX_ASSET_DECIMALS + 1)).toThrow(RangeError);
  });

  it('are read from a watcher’s decimal integer, up to a uint256', () => {
    expect(parseAtomicUnits('10712346')).toBe(10712346n);
    const max = ((1n << 256n) - 1n).toString();
    expect(parseAtomicUnits(max)).toBe((1n << 256n) - 1n);
    for (const text of ['0', '-1', '01', '1.0', '1e6', ' 1', '', (1n << 256n).toString()]) {
      expect(parseAtomicUnits(text)).toBeUndefined();
    }
    expect(parseAtomicUnits(10712346)).toBeUndefined();
  });
});
