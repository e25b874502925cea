import { successfulResponse } from '../../test/support/fixtures.js';
import { completePaymentResponse } from '../../test/support/payment-response-samples.js';
import { PAYMENT_RESPONSE_FIELDS, SUCCESSFUL_REQUIRED_FIELDS } from './payment-response.fields.js';
import type { PaymentResponseInputDto } from './dto/payment-report.dto.js';
import {
  StoredReport,
  buildStatusElement,
  toStoredPaymentResponse,
} from './payment-status.shapes.js';

const KEY = 'vk_session_own_key_1';

/** The six fields a SUCCESSFUL report must carry. */
function requiredResponse(
  overrides: Partial<Record<keyof PaymentResponseInputDto, unknown>> = {},
): PaymentResponseInputDto {
  return successfulResponse(overrides) as unknown as PaymentResponseInputDto;
}

/** Every field of PAYMENT_RESPONSE_FIELDS except validationKey (which the view adds). */
function fullResponse(): PaymentResponseInputDto {
  return completePaymentResponse() as unknown as PaymentResponseInputDto;
}

function report(overrides: Partial<StoredReport>): StoredReport {
  return {
    status: 'PENDING',
    detailedStatus: null,
    errorMessage: null,
    paymentResponse: null,
    ...overrides,
  };
}

function successful(response: unknown): StoredReport {
  return report({ status: 'SUCCESSFUL', paymentResponse: JSON.stringify(response) });
}

/** Fails when any value anywhere in the element is null. */
function expectNoNulls(value: unknown): void {
  expect(JSON.stringify(value)).not.toMatch(/:null\b/);
}

describe('buildStatusElement', () => {
  it('gives PENDING as {status} alone', () => {
    const element = buildStatusElement(KEY, report({ status: 'PENDING' }));
    expect(element).toEqual({ status: 'PENDING' });
    expect(Object.keys(element)).toEqual(['status']);
  });

  it('gives NOT_COMPLETED without detailedStatus when there is none (omitted, not null)', () => {
    const element = buildStatusElement(KEY, report({ status: 'NOT_COMPLETED' }));
    expect(Object.keys(element)).toEqual(['status']);
    expect('detailedStatus' in element).toBe(false);
    expect(element).toEqual({ status: 'NOT_COMPLETED' });
  });

  it('gives NOT_COMPLETED with its detailedStatus', () => {
    const element = buildStatusElement(
      KEY,
      report({ status: 'NOT_COMPLETED', detailedStatus: 'ABANDONED_BY_USER' }),
    );
    expect(element).toEqual({ status: 'NOT_COMPLETED', detailedStatus: 'ABANDONED_BY_USER' });
    expect(Object.keys(element).sort()).toEqual(['detailedStatus', 'status']);
  });

  it('gives FAILED with errorMessage and without detailedStatus when there is none', () => {
    const element = buildStatusElement(
      KEY,
      report({ status: 'FAILED', errorMessage: 'Payment declined by the issuer' }),
    );
    expect(element).toEqual({ status: 'FAILED', errorMessage: 'Payment declined by the issuer' });
    expect(Object.keys(element).sort()).toEqual(['errorMessage', 'status']);
    expect('detailedStatus' in element).toBe(false);
    expectNoNulls(element);
  });

  it('gives FAILED with errorMessage and detailedStatus', () => {
    const element = buildStatusElement(
      KEY,
      report({
        status: 'FAILED',
        errorMessage: 'Insufficient funds in source wallet',
        detailedStatus: 'INSUFFICIENT_FUNDS',
      }),
    );
    expect(element).toEqual({
      status: 'FAILED',
      errorMessage: 'Insufficient funds in source wallet',
      detailedStatus: 'INSUFFICIENT_FUNDS',
    });
  });

  it('gives SUCCESSFUL as {status, paymentResponse} only', () => {
    const element = buildStatusElement(KEY, successful(toStoredPaymentResponse(fullResponse())));
    expect(Object.keys(element).sort()).toEqual(['paymentResponse', 'status']);
    expect(element.status).toBe('SUCCESSFUL');
  });

  it("puts the session's own validationKey in paymentResponse", () => {
    const element = buildStatusElement(
      KEY,
      successful(toStoredPaymentResponse(requiredResponse())),
    );
    expect(element).toMatchObject({ paymentResponse: { validationKey: KEY } });
  });

  it("uses the session's own key even when the stored response names another", () => {
    const stored = { ...toStoredPaymentResponse(requiredResponse()), validationKey: 'vk_other' };
    const element = buildStatusElement(KEY, successful(stored));
    expect(element).toMatchObject({ paymentResponse: { validationKey: KEY } });
    expect(JSON.stringify(element)).not.toContain('vk_other');
  });

  it('omits the absent optional fields of paymentResponse (never null)', () => {
    const element = buildStatusElement(
      KEY,
      successful(toStoredPaymentResponse(requiredResponse())),
    );
    if (element.status !== 'SUCCESSFUL') throw new Error('expected SUCCESSFUL');
    const present = [...SUCCESSFUL_REQUIRED_FIELDS, 'validationKey'];
    expect(Object.keys(element.paymentResponse).sort()).toEqual(present.sort());
    for (const absent of Object.keys(PAYMENT_RESPONSE_FIELDS)) {
      if (present.includes(absent)) continue;
      expect(absent in element.paymentResponse).toBe(false);
    }
    expectNoNulls(element);
  });

  it('carries every field of PAYMENT_RESPONSE_FIELDS, in its order', () => {
    const element = buildStatusElement(KEY, successful(toStoredPaymentResponse(fullResponse())));
    if (element.status !== 'SUCCESSFUL') throw new Error('expected SUCCESSFUL');
    expect(Object.keys(element.paymentResponse)).toEqual(Object.keys(PAYMENT_RESPONSE_FIELDS));
    expectNoNulls(element);
  });

  // The one place the contract's list is written out: the field list must hold exactly it.
  it("lists the fields of the contract's paymentResponse, in the contract's order", () => {
    expect(Object.keys(PAYMENT_RESPONSE_FIELDS)).toEqual([
      'sourceMoney',
      'destinationMoney',
      'totalFees',
      'money',
      'requestedMoney',
      'traceId',
      'description',
      'clientReference',
      'validationKey',
      'responseCode',
      'transactionReference',
      'paymentType',
      'paymentMethod',
      'customerAccountNumber',
      'accountNumber',
      'customerDob',
      'customerFirstName',
      'customerLastName',
      'senderEmailAddress',
      'customerCountryCode',
    ]);
  });

  it('shows money with amount, currency and an exact presentationAmount', () => {
    const element = buildStatusElement(
      KEY,
      successful(
        toStoredPaymentResponse(
          requiredResponse({
            sourceMoney: { amount: 150, currency: 'EUR' },
            destinationMoney: { amount: 1234567.5, currency: 'USDT' },
            totalFees: { amount: '0.10', currency: 'EUR' },
            money: { amount: 0, currency: 'EUR' },
            requestedMoney: { amount: '19.9', currency: 'EUR' },
          }),
        ),
      ),
    );
    if (element.status !== 'SUCCESSFUL') throw new Error('expected SUCCESSFUL');
    const response = element.paymentResponse;
    expect(response.sourceMoney).toEqual({
      amount: 150,
      currency: 'EUR',
      presentationAmount: 'EUR150.00',
    });
    expect(response.destinationMoney).toEqual({
      amount: 1234567.5,
      currency: 'USDT',
      presentationAmount: 'USDT1234567.50',
    });
    expect(response.totalFees).toEqual({
      amount: 0.1,
      currency: 'EUR',
      presentationAmount: 'EUR0.10',
    });
    expect(response.money).toEqual({ amount: 0, currency: 'EUR', presentationAmount: 'EUR0.00' });
    expect(response.requestedMoney).toEqual({
      amount: 19.9,
      currency: 'EUR',
      presentationAmount: 'EUR19.90',
    });
    expect(Object.keys(response.sourceMoney!)).toEqual([
      'amount',
      'currency',
      'presentationAmount',
    ]);
  });

  it('shows the masked account number, never the clear one', () => {
    const element = buildStatusElement(KEY, successful(toStoredPaymentResponse(fullResponse())));
    expect(element).toMatchObject({
      paymentResponse: { accountNumber: 'IE29XXXXXXXXXXXXXX5678' },
    });
    expect(JSON.stringify(element)).not.toContain('IE29AIBK93115212345678');
  });
});

describe('toStoredPaymentResponse', () => {
  it('masks accountNumber: first 4 and last 4 kept, X between', () => {
    const stored = toStoredPaymentResponse(
      requiredResponse({ accountNumber: 'IE29AIBK93115212345678' }),
    );
    expect(stored.accountNumber).toBe('IE29XXXXXXXXXXXXXX5678');
    expect(JSON.stringify(stored)).not.toContain('AIBK9311521234');
  });

  it.each([
    ['123456789', '1234X6789'],
    ['12345678', 'XXXX5678'],
    ['12345', 'X2345'],
    ['1234', '1234'],
  ])('masks a %s-character accountNumber as %s', (clear, masked) => {
    expect(toStoredPaymentResponse(requiredResponse({ accountNumber: clear })).accountNumber).toBe(
      masked,
    );
  });

  it('leaves the other text fields as given', () => {
    const given = fullResponse();
    const stored = toStoredPaymentResponse(given);
    for (const [field, kind] of Object.entries(PAYMENT_RESPONSE_FIELDS)) {
      const name = field as keyof typeof stored;
      if (kind === 'text') expect(stored[name]).toBe(given[name]);
    }
  });

  it('stores money as integer minor units with its currency', () => {
    const stored = toStoredPaymentResponse(
      requiredResponse({
        sourceMoney: { amount: 150, currency: 'EUR' },
        destinationMoney: { amount: 161.37, currency: 'USDT' },
        totalFees: { amount: '1.5', currency: 'EUR' },
        money: { amount: 1234567.5, currency: 'EUR' },
        requestedMoney: { amount: 0.1, currency: 'EUR' },
      }),
    );
    expect(stored.sourceMoney).toEqual({ amountMinor: 15000, currency: 'EUR' });
    expect(stored.destinationMoney).toEqual({ amountMinor: 16137, currency: 'USDT' });
    expect(stored.totalFees).toEqual({ amountMinor: 150, currency: 'EUR' });
    expect(stored.money).toEqual({ amountMinor: 123456750, currency: 'EUR' });
    expect(stored.requestedMoney).toEqual({ amountMinor: 10, currency: 'EUR' });
    for (const money of [stored.sourceMoney, stored.destinationMoney, stored.money]) {
      expect(Number.isInteger(money!.amountMinor)).toBe(true);
    }
  });

  it('stores only the fields that were given', () => {
    const stored = toStoredPaymentResponse(requiredResponse());
    expect(Object.keys(stored).sort()).toEqual([
      'destinationMoney',
      'money',
      'sourceMoney',
      'totalFees',
      'traceId',
      'transactionReference',
    ]);
  });

  it('refuses to store an amount that is not exact rather than rounding it', () => {
    expect(() =>
      toStoredPaymentResponse(requiredResponse({ money: { amount: 0.1 + 0.2, currency: 'EUR' } })),
    ).toThrow();
  });
});
