import { successfulResponse } from '../../test/support/fixtures.js';
import { PERSONAL_FIELDS } from './payment-response.fields.js';
import { callbackBody, toStoredPaymentResponse } from './payment-status.shapes.js';
import { callbackBodyWithoutPersonalData, withoutPersonalData } from './personal-data.js';
import type { PaymentResponseInputDto } from './dto/payment-report.dto.js';

const PERSONAL = {
  customerFirstName: 'Ada',
  customerLastName: 'Lovelace',
  customerDob: '1815-12-10',
  senderEmailAddress: 'ada@example.com',
  customerAccountNumber: 'GB29NWBK60161331926819',
  accountNumber: 'DE89370400440532013000',
  customerCountryCode: 'GB',
};

const stored = () =>
  JSON.stringify(
    toStoredPaymentResponse(
      successfulResponse({
        ...PERSONAL,
        description: 'Order 17',
      }) as unknown as PaymentResponseInputDto,
    ),
  );

describe('personal data', () => {
  it('names every personal field of the contract', () => {
    expect([...PERSONAL_FIELDS].sort()).toEqual(Object.keys(PERSONAL).sort());
  });

  it('drops the personal fields of a stored payment response and keeps the rest', () => {
    const { stored: erased, erased: fields } = withoutPersonalData(stored());
    expect([...fields].sort()).toEqual(Object.keys(PERSONAL).sort());
    for (const value of Object.values(PERSONAL)) expect(erased).not.toContain(value);
    expect(erased).not.toContain('5301'); // the masked account number's last digits
    expect(JSON.parse(erased!)).toMatchObject({
      description: 'Order 17',
      traceId: 'TRC-1',
      money: { amountMinor: 14850, currency: 'EUR' },
    });
  });

  it('changes nothing without personal fields, or without a payment response', () => {
    const { stored: once } = withoutPersonalData(stored());
    expect(withoutPersonalData(once)).toEqual({ stored: once, erased: [] });
    expect(withoutPersonalData(null)).toEqual({ stored: null, erased: [] });
  });

  it('drops them from a callback body, keeping status and validationKey on top', () => {
    const body = callbackBody('vk_1', {
      status: 'SUCCESSFUL',
      detailedStatus: null,
      errorMessage: null,
      paymentResponse: stored(),
    });
    const erased = callbackBodyWithoutPersonalData(body)!;
    for (const value of ['Ada', 'Lovelace', '1815-12-10', 'ada@example.com', 'GB29']) {
      expect(erased).not.toContain(value);
    }
    expect(Object.keys(JSON.parse(erased)).slice(0, 1)).toEqual(['status']);
    expect(JSON.parse(erased)).toMatchObject({ status: 'SUCCESSFUL', validationKey: 'vk_1' });
    expect(callbackBodyWithoutPersonalData(erased)).toBeUndefined();
    expect(
      callbackBodyWithoutPersonalData('{"status":"FAILED","validationKey":"k"}'),
    ).toBeUndefined();
  });
});
