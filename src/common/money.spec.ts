import { addMoney, majorUnits, moneyView, presentationAmount, toMinorUnits } from './money.js';

describe('money', () => {
  it('reads numbers and decimal strings into minor units exactly', () => {
    expect(toMinorUnits(150)).toBe(15000);
    expect(toMinorUnits(0)).toBe(0);
    expect(toMinorUnits(1234567.5)).toBe(123456750);
    expect(toMinorUnits(0.1)).toBe(10);
    expect(toMinorUnits(19.99)).toBe(1999);
    expect(toMinorUnits('19.9')).toBe(1990);
    expect(toMinorUnits('007.05')).toBe(705);
    expect(toMinorUnits(999999999999.99)).toBe(99999999999999);
  });

  it('refuses negative, non-finite, over-precise and oversized amounts', () => {
    expect(toMinorUnits(-1)).toBeUndefined();
    expect(toMinorUnits(0.1 + 0.2)).toBeUndefined();
    expect(toMinorUnits(1.005)).toBeUndefined();
    expect(toMinorUnits(Number.NaN)).toBeUndefined();
    expect(toMinorUnits(Infinity)).toBeUndefined();
    expect(toMinorUnits(1e21)).toBeUndefined();
    expect(toMinorUnits(1000000000000)).toBeUndefined();
    expect(toMinorUnits('1,000.00')).toBeUndefined();
    expect(toMinorUnits('12.')).toBeUndefined();
    expect(toMinorUnits('')).toBeUndefined();
    expect(toMinorUnits(null)).toBeUndefined();
    expect(toMinorUnits(true)).toBeUndefined();
  });

  it('presents amounts with exactly two decimals and no separators', () => {
    expect(presentationAmount('EUR', 15000)).toBe('EUR150.00');
    expect(presentationAmount('EUR', 123456750)).toBe('EUR1234567.50');
    expect(presentationAmount('EUR', 0)).toBe('EUR0.00');
    expect(presentationAmount('USDT', 5)).toBe('USDT0.05');
    expect(presentationAmount('EUR', 99999999999999)).toBe('EUR999999999999.99');
  });

  it('adds 0.1 and 0.2 without a float artefact', () => {
    const sum = addMoney(
      { amountMinor: toMinorUnits(0.1)!, currency: 'EUR' },
      { amountMinor: toMinorUnits(0.2)!, currency: 'EUR' },
    );
    expect(moneyView(sum)).toEqual({ amount: 0.3, currency: 'EUR', presentationAmount: 'EUR0.30' });
    expect(JSON.stringify(moneyView(sum))).toContain('"amount":0.3,');
    expect(() => addMoney(sum, { amountMinor: 1, currency: 'USD' })).toThrow();
  });

  it('gives major units as the JSON number of the exact decimal', () => {
    expect(majorUnits(123456750)).toBe(1234567.5);
    expect(String(majorUnits(30))).toBe('0.3');
    expect(String(majorUnits(16137))).toBe('161.37');
  });
});
