import type { PaymentInstructions } from '../deposits/checkout-payments.service.js';
import { acceptsHtml } from './checkout-page.controller.js';
import { formatAmount, paymentStep, progressText } from './checkout-pages.js';
import { fillIn, PAGE_LANGUAGES } from './messages.js';

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

describe("the payment step's texts", () => {
  const t = PAGE_LANGUAGES.en;
  const usdt = (progress: PaymentInstructions['progress']): PaymentInstructions => ({
    pair: 'USDT/TRC20',
    assetCode: 'USDT',
    network: 'tron',
    networkLabel: 'TRON',
    tokenContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    decimals: 6,
    amount: '10.869566',
    amountAtomic: '10869566',
    address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
    paymentUri: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
    price: '0.92',
    fiat: 'EUR',
    quoteExpiresAt: '2026-01-02T03:19:30.000Z',
    quoteExpired: false,
    quoteLocked: false,
    confirmationsRequired: 20,
    progress,
  });
  const none = { amount: '0', amountAtomic: '0' };
  const all = { amount: '10.869566', amountAtomic: '10869566' };

  it.each([
    [
      { state: 'waiting', received: none, remaining: all },
      'Waiting for your transfer. This page updates by itself.',
    ],
    [
      { state: 'seen', confirmations: 3, received: none, remaining: all },
      'Transfer seen: 3 of 20 confirmations.',
    ],
    [
      { state: 'seen', confirmations: 0, received: none, remaining: all },
      'Transfer seen: 0 of 20 confirmations.',
    ],
    [
      {
        state: 'underpaid',
        received: { amount: '5.434783', amountAtomic: '5434783' },
        remaining: { amount: '5.434783', amountAtomic: '5434783' },
      },
      'Received 5.434783 USDT: 5.434783 USDT is still missing. Send it to the same address.',
    ],
    [{ state: 'paid', received: all, remaining: none }, 'Transfer confirmed.'],
  ] as const)('says %j as %s', (progress, text) => {
    expect(progressText(usdt(progress), t)).toBe(text);
  });

  it('warns of the asset and the network, and counts down to the quote’s end', () => {
    const payment = usdt({ state: 'waiting', received: none, remaining: all });
    const now = Date.parse('2026-01-02T03:04:30.400Z');
    expect(paymentStep(payment, t, now)).toEqual({
      warning: 'Send only USDT on TRON. Another asset, or USDT on another network, is lost.',
      quoteUntil: '03:19 UTC',
      quoteSeconds: 899,
      quoteNote: '',
      progress: 'Waiting for your transfer. This page updates by itself.',
    });
    expect(paymentStep(payment, t, Date.parse('2026-01-02T04:00:00Z')).quoteSeconds).toBe(0);
    expect(paymentStep({ ...payment, quoteLocked: true }, t, now).quoteNote).toBe(t.quoteLocked);
    expect(paymentStep({ ...payment, quoteExpired: true }, t, now).quoteNote).toBe(t.quoteExpired);
    expect(paymentStep(payment, PAGE_LANGUAGES.de, now).warning).toBe(
      'Senden Sie nur USDT über TRON. Ein anderes Asset oder USDT über ein anderes Netzwerk geht verloren.',
    );
  });

  it('fills in the places a message names, and leaves the others', () => {
    expect(fillIn('{n} of {required} ({x})', { n: 2, required: 6 })).toBe('2 of 6 ({x})');
  });
});

describe('acceptsHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['TEXT/HTML; q=0.5', true],
    ['application/json', false],
    ['*/*', false],
    [undefined, false],
    ['text/htmlx', false],
  ])('%s: %s', (accept, html) => {
    expect(acceptsHtml(accept)).toBe(html);
  });
});
