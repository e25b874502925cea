import { successfulResponse } from '../../../test/support/fixtures.js';
import { completePaymentResponse } from '../../../test/support/payment-response-samples.js';
import { validatePlain } from '../../common/validation.js';
import { statusFieldErrors } from '../payment-report.rules.js';
import { PaymentReportDto } from './payment-report.dto.js';

const KEY = 'vk_dto_0001';

/**
 * The fields an operator report is refused for, as the HTTP pipeline judges it: the per-field
 * rules first, then (when those pass) the rules that tie fields to the status.
 */
async function refusedFields(body: Record<string, unknown>): Promise<string[]> {
  const { value, errors } = await validatePlain(PaymentReportDto, body);
  const found = errors.length > 0 ? errors : statusFieldErrors(KEY, value);
  return found.map((e) => e.field).sort();
}

const successful = (overrides: Record<string, unknown>) => ({
  merchantId: 'acme',
  status: 'SUCCESSFUL',
  paymentResponse: successfulResponse(overrides),
});

describe('PaymentReportDto with the status rules', () => {
  it.each([
    ['a complete SUCCESSFUL report', successful({}), []],
    [
      'a FAILED report with errorMessage',
      { merchantId: 'a', status: 'FAILED', errorMessage: 'x' },
      [],
    ],
    [
      'SUCCESSFUL without paymentResponse',
      { merchantId: 'acme', status: 'SUCCESSFUL' },
      ['paymentResponse'],
    ],
    [
      'SUCCESSFUL without transactionReference',
      successful({ transactionReference: undefined }),
      ['paymentResponse.transactionReference'],
    ],
    [
      'SUCCESSFUL with a non-UUID transactionReference',
      successful({ transactionReference: 'TX-12345' }),
      ['paymentResponse.transactionReference'],
    ],
    [
      'SUCCESSFUL without money and traceId',
      successful({ money: undefined, traceId: undefined }),
      ['paymentResponse.money', 'paymentResponse.traceId'],
    ],
    [
      'SUCCESSFUL without sourceMoney, destinationMoney and totalFees',
      successful({ sourceMoney: undefined, destinationMoney: undefined, totalFees: undefined }),
      [
        'paymentResponse.destinationMoney',
        'paymentResponse.sourceMoney',
        'paymentResponse.totalFees',
      ],
    ],
    ['FAILED without errorMessage', { merchantId: 'acme', status: 'FAILED' }, ['errorMessage']],
    [
      'PENDING with an errorMessage',
      { merchantId: 'acme', status: 'PENDING', errorMessage: 'nope' },
      ['errorMessage'],
    ],
    [
      'PENDING with a paymentResponse',
      { merchantId: 'acme', status: 'PENDING', paymentResponse: successfulResponse() },
      ['paymentResponse'],
    ],
    ['an unknown status', { merchantId: 'acme', status: 'DONE' }, ['status']],
    ['no status and no merchantId', {}, ['merchantId', 'status']],
    [
      'a money amount with 3 decimals',
      successful({ money: { amount: 148.505, currency: 'EUR' } }),
      ['paymentResponse.money.amount'],
    ],
    [
      'a money amount with 3 decimals as text',
      successful({ money: { amount: '148.505', currency: 'EUR' } }),
      ['paymentResponse.money.amount'],
    ],
    [
      'a negative money amount',
      successful({ money: { amount: -1, currency: 'EUR' } }),
      ['paymentResponse.money.amount'],
    ],
    [
      'a negative amount in sourceMoney and 3 decimals in totalFees',
      successful({
        sourceMoney: { amount: -150, currency: 'EUR' },
        totalFees: { amount: 1.555, currency: 'EUR' },
      }),
      ['paymentResponse.sourceMoney.amount', 'paymentResponse.totalFees.amount'],
    ],
    [
      'a currency code with a dotless ı or a long ſ',
      successful({
        money: { amount: 148.5, currency: 'ſgd' },
        sourceMoney: { amount: 150, currency: 'uſdt' },
      }),
      ['paymentResponse.money.currency', 'paymentResponse.sourceMoney.currency'],
    ],
    [
      'a customerCountryCode with a dotless ı',
      successful({ customerCountryCode: 'ıe' }),
      ['paymentResponse.customerCountryCode'],
    ],
  ] as [string, Record<string, unknown>, string[]][])('%s', async (_label, body, fields) => {
    expect(await refusedFields(body)).toEqual([...fields].sort());
  });
});

describe('PaymentReportDto and null', () => {
  // A field may be left out; a null is a value, judged by the field's rules, never stored as
  // given (an answer says nothing of a field it does not have, never `null`).
  it.each(Object.keys(completePaymentResponse()))(
    'refuses paymentResponse.%s given as null, and only it',
    async (field) => {
      const body = {
        merchantId: 'acme',
        status: 'SUCCESSFUL',
        paymentResponse: { ...completePaymentResponse(), [field]: null },
      };
      expect(await refusedFields(body)).toEqual([`paymentResponse.${field}`]);
    },
  );

  it.each([
    ['paymentResponse', successful({})],
    ['errorMessage', { merchantId: 'a', status: 'FAILED', errorMessage: 'x' }],
    ['detailedStatus', { merchantId: 'a', status: 'PENDING' }],
    ['returnUrl', { merchantId: 'a', status: 'PENDING' }],
    ['errorUrl', { merchantId: 'a', status: 'PENDING' }],
    ['merchantId', { merchantId: 'a', status: 'PENDING' }],
    ['status', { merchantId: 'a', status: 'PENDING' }],
  ] as [string, Record<string, unknown>][])('refuses %s given as null', async (field, valid) => {
    expect(await refusedFields(valid)).toEqual([]);
    expect(await refusedFields({ ...valid, [field]: null })).toEqual([field]);
  });

  it('refuses an amount given as null', async () => {
    const body = successful({ money: { amount: null, currency: 'EUR' } });
    expect(await refusedFields(body)).toEqual(['paymentResponse.money.amount']);
  });
});

describe('PaymentReportDto codes', () => {
  it('upper-cases ASCII currency and country codes', async () => {
    const { value, errors } = await validatePlain(
      PaymentReportDto,
      successful({ money: { amount: 1, currency: 'eur' }, customerCountryCode: 'ie' }),
    );
    expect(errors).toEqual([]);
    expect(value.paymentResponse?.money?.currency).toBe('EUR');
    expect(value.paymentResponse?.customerCountryCode).toBe('IE');
  });
});
