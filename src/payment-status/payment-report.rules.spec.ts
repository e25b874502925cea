import type { PaymentReportDto } from './dto/payment-report.dto.js';
import { successfulResponse as paymentResponse } from '../../test/support/fixtures.js';
import { sameReport, statusFieldErrors, toStoredReport } from './payment-report.rules.js';

const KEY = 'vk_rules_key_0001';

function report(fields: Record<string, unknown>): PaymentReportDto {
  return { merchantId: 'demo', ...fields } as unknown as PaymentReportDto;
}

/** The fields the contract requires of a SUCCESSFUL report, written out as the contract says. */
const REQUIRED = [
  'transactionReference',
  'money',
  'sourceMoney',
  'destinationMoney',
  'totalFees',
  'traceId',
];

describe('statusFieldErrors', () => {
  describe('SUCCESSFUL', () => {
    it('accepts a complete paymentResponse', () => {
      expect(
        statusFieldErrors(
          KEY,
          report({ status: 'SUCCESSFUL', paymentResponse: paymentResponse() }),
        ),
      ).toEqual([]);
    });

    it('requires paymentResponse', () => {
      expect(statusFieldErrors(KEY, report({ status: 'SUCCESSFUL' }))).toEqual([
        { field: 'paymentResponse', message: 'is required when status is SUCCESSFUL' },
      ]);
    });

    it.each(REQUIRED)('requires paymentResponse.%s', (field) => {
      const response = paymentResponse();
      delete response[field];
      expect(
        statusFieldErrors(KEY, report({ status: 'SUCCESSFUL', paymentResponse: response })),
      ).toEqual([
        { field: `paymentResponse.${field}`, message: 'is required when status is SUCCESSFUL' },
      ]);
    });

    it('names each of the six missing fields of an empty paymentResponse', () => {
      const errors = statusFieldErrors(KEY, report({ status: 'SUCCESSFUL', paymentResponse: {} }));
      expect(errors.map((e) => e.field).sort()).toEqual(
        REQUIRED.map((field) => `paymentResponse.${field}`).sort(),
      );
    });

    it("accepts paymentResponse.validationKey equal to the session's key", () => {
      expect(
        statusFieldErrors(
          KEY,
          report({
            status: 'SUCCESSFUL',
            paymentResponse: paymentResponse({ validationKey: KEY }),
          }),
        ),
      ).toEqual([]);
    });

    it("refuses paymentResponse.validationKey other than the session's key", () => {
      expect(
        statusFieldErrors(
          KEY,
          report({
            status: 'SUCCESSFUL',
            paymentResponse: paymentResponse({ validationKey: 'vk_someone_else' }),
          }),
        ),
      ).toEqual([
        {
          field: 'paymentResponse.validationKey',
          message: expect.stringContaining('validationKey'),
        },
      ]);
    });

    it('refuses errorMessage and detailedStatus', () => {
      const errors = statusFieldErrors(
        KEY,
        report({
          status: 'SUCCESSFUL',
          paymentResponse: paymentResponse(),
          errorMessage: 'nope',
          detailedStatus: 'X',
        }),
      );
      expect(errors.map((e) => e.field).sort()).toEqual(['detailedStatus', 'errorMessage']);
      expect(errors.find((e) => e.field === 'errorMessage')?.message).toBe(
        'is only allowed when status is FAILED',
      );
      expect(errors.find((e) => e.field === 'detailedStatus')?.message).toBe(
        'is only allowed when status is NOT_COMPLETED or FAILED',
      );
    });
  });

  describe('FAILED', () => {
    it('requires errorMessage', () => {
      expect(statusFieldErrors(KEY, report({ status: 'FAILED' }))).toEqual([
        { field: 'errorMessage', message: 'is required when status is FAILED' },
      ]);
    });

    it('accepts errorMessage with or without detailedStatus', () => {
      expect(
        statusFieldErrors(KEY, report({ status: 'FAILED', errorMessage: 'Declined' })),
      ).toEqual([]);
      expect(
        statusFieldErrors(
          KEY,
          report({ status: 'FAILED', errorMessage: 'Declined', detailedStatus: 'DECLINED' }),
        ),
      ).toEqual([]);
    });

    it('refuses paymentResponse', () => {
      expect(
        statusFieldErrors(
          KEY,
          report({
            status: 'FAILED',
            errorMessage: 'Declined',
            paymentResponse: paymentResponse(),
          }),
        ),
      ).toEqual([
        { field: 'paymentResponse', message: 'is only allowed when status is SUCCESSFUL' },
      ]);
    });
  });

  describe('NOT_COMPLETED', () => {
    it('accepts no extra field, or detailedStatus', () => {
      expect(statusFieldErrors(KEY, report({ status: 'NOT_COMPLETED' }))).toEqual([]);
      expect(
        statusFieldErrors(KEY, report({ status: 'NOT_COMPLETED', detailedStatus: 'ABANDONED' })),
      ).toEqual([]);
    });

    it('refuses errorMessage and paymentResponse', () => {
      const errors = statusFieldErrors(
        KEY,
        report({ status: 'NOT_COMPLETED', errorMessage: 'x', paymentResponse: paymentResponse() }),
      );
      expect(errors).toEqual(
        expect.arrayContaining([
          { field: 'errorMessage', message: 'is only allowed when status is FAILED' },
          { field: 'paymentResponse', message: 'is only allowed when status is SUCCESSFUL' },
        ]),
      );
      expect(errors).toHaveLength(2);
    });
  });

  describe('PENDING', () => {
    it('accepts the status alone', () => {
      expect(statusFieldErrors(KEY, report({ status: 'PENDING' }))).toEqual([]);
    });

    it.each([
      ['errorMessage', { errorMessage: 'x' }, 'is only allowed when status is FAILED'],
      [
        'paymentResponse',
        { paymentResponse: paymentResponse() },
        'is only allowed when status is SUCCESSFUL',
      ],
      [
        'detailedStatus',
        { detailedStatus: 'WAITING' },
        'is only allowed when status is NOT_COMPLETED or FAILED',
      ],
    ])('refuses %s', (field, extra, message) => {
      expect(statusFieldErrors(KEY, report({ status: 'PENDING', ...extra }))).toEqual([
        { field, message },
      ]);
    });

    it('reports every offending field at once', () => {
      const errors = statusFieldErrors(
        KEY,
        report({
          status: 'PENDING',
          errorMessage: 'x',
          detailedStatus: 'y',
          paymentResponse: paymentResponse(),
        }),
      );
      expect(errors.map((e) => e.field).sort()).toEqual([
        'detailedStatus',
        'errorMessage',
        'paymentResponse',
      ]);
    });
  });
});

describe('toStoredReport', () => {
  it('stores absent optional fields as null', () => {
    expect(toStoredReport(report({ status: 'PENDING' }))).toEqual({
      status: 'PENDING',
      detailedStatus: null,
      errorMessage: null,
      paymentResponse: null,
    });
  });

  it('keeps detailedStatus and errorMessage', () => {
    expect(
      toStoredReport(report({ status: 'FAILED', errorMessage: 'Declined', detailedStatus: 'D' })),
    ).toEqual({
      status: 'FAILED',
      detailedStatus: 'D',
      errorMessage: 'Declined',
      paymentResponse: null,
    });
  });

  it('stores the payment response as JSON with minor units and a masked account number', () => {
    const stored = toStoredReport(
      report({
        status: 'SUCCESSFUL',
        paymentResponse: paymentResponse({ accountNumber: 'IE29AIBK93115212345678' }),
      }),
    );
    expect(stored.status).toBe('SUCCESSFUL');
    expect(typeof stored.paymentResponse).toBe('string');
    const parsed = JSON.parse(stored.paymentResponse!);
    expect(parsed.sourceMoney).toEqual({ amountMinor: 15000, currency: 'EUR' });
    expect(parsed.destinationMoney).toEqual({ amountMinor: 16137, currency: 'USDT' });
    expect(parsed.accountNumber).toBe('IE29XXXXXXXXXXXXXX5678');
    expect(stored.paymentResponse).not.toContain('AIBK9311521234');
  });
});

describe('sameReport', () => {
  const successful = (response: Record<string, unknown>) =>
    toStoredReport(report({ status: 'SUCCESSFUL', paymentResponse: response }));

  it('holds for the identical report', () => {
    const a = report({ status: 'FAILED', errorMessage: 'Declined', detailedStatus: 'D' });
    const b = report({ status: 'FAILED', errorMessage: 'Declined', detailedStatus: 'D' });
    expect(sameReport(toStoredReport(a), toStoredReport(b))).toBe(true);
    expect(sameReport(successful(paymentResponse()), successful(paymentResponse()))).toBe(true);
  });

  it('does not depend on the order of the fields in paymentResponse', () => {
    const forward = paymentResponse({ description: 'Payout' });
    const reversed = Object.fromEntries(Object.entries(forward).reverse());
    expect(sameReport(successful(forward), successful(reversed))).toBe(true);
  });

  it('treats the same amount written differently as the same', () => {
    expect(
      sameReport(
        successful(paymentResponse({ money: { amount: 148.5, currency: 'EUR' } })),
        successful(paymentResponse({ money: { amount: '148.50', currency: 'EUR' } })),
      ),
    ).toBe(true);
  });

  it.each([
    ['status', report({ status: 'PENDING' }), report({ status: 'NOT_COMPLETED' })],
    [
      'detailedStatus',
      report({ status: 'FAILED', errorMessage: 'Declined', detailedStatus: 'A' }),
      report({ status: 'FAILED', errorMessage: 'Declined', detailedStatus: 'B' }),
    ],
    [
      'detailedStatus given or not',
      report({ status: 'NOT_COMPLETED' }),
      report({ status: 'NOT_COMPLETED', detailedStatus: 'A' }),
    ],
    [
      'errorMessage',
      report({ status: 'FAILED', errorMessage: 'Declined' }),
      report({ status: 'FAILED', errorMessage: 'Refused' }),
    ],
    [
      'a payment response amount',
      report({ status: 'SUCCESSFUL', paymentResponse: paymentResponse() }),
      report({
        status: 'SUCCESSFUL',
        paymentResponse: paymentResponse({ money: { amount: 148.51, currency: 'EUR' } }),
      }),
    ],
    [
      'a payment response text field',
      report({ status: 'SUCCESSFUL', paymentResponse: paymentResponse() }),
      report({ status: 'SUCCESSFUL', paymentResponse: paymentResponse({ traceId: 'TRC-2' }) }),
    ],
  ])('fails when %s differs', (_what, a, b) => {
    expect(sameReport(toStoredReport(a), toStoredReport(b))).toBe(false);
    expect(sameReport(toStoredReport(b), toStoredReport(a))).toBe(false);
  });
});
