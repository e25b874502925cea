import { formatAmount } from './checkout-pages.js';

describe('formatAmount', () => {
  it.each([
    [{ amountMinor: 1000, currency: 'EUR' }, 'en', '€10.00'],
    [{ amountMinor: 1050, currency: 'EUR' }, 'de', '10,50\u00a0€'],
    [{ amountMinor: 100000, currency: 'JPY' }, 'en', '¥1,000'],
    // Stored in hundredths whatever the currency: never rounded to the currency's usual decimals.
    [{ amountMinor: 49, currency: 'JPY' }, 'en', '¥0.49'],
    [{ amountMinor: 150, currency: 'JPY' }, 'en', '¥1.50'],
    [{ amountMinor: 100099, currency: 'KRW' }, 'en', '₩1,000.99'],
  ])('shows %j in %s as %s', (money, lang, shown) => {
    expect(formatAmount(money, lang)).toBe(shown);
  });
});
