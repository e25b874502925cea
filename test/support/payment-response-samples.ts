import {
  PAYMENT_RESPONSE_FIELDS,
  type PaymentResponseField,
} from '../../src/payment-status/payment-response.fields.js';

/** Values that meet a field's own rule where a plain text would not. */
const SPECIAL_VALUES: Partial<Record<PaymentResponseField, string>> = {
  transactionReference: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
  customerDob: '1990-04-23',
  senderEmailAddress: 'aoife.murphy@example.com',
  customerCountryCode: 'IE',
  accountNumber: 'IE29AIBK93115212345678',
};

/**
 * A valid operator paymentResponse that gives every field of PAYMENT_RESPONSE_FIELDS (but the
 * session's own key), each money field with a different amount. Built from the field list, so a
 * field added there is given here too.
 */
export function completePaymentResponse(): Record<string, unknown> {
  const response: Record<string, unknown> = {};
  let n = 0;
  for (const [field, kind] of Object.entries(PAYMENT_RESPONSE_FIELDS)) {
    n++;
    if (kind === 'sessionKey') continue;
    response[field] =
      kind === 'money'
        ? { amount: `${n * 10}.${String(n).padStart(2, '0')}`, currency: 'EUR' }
        : (SPECIAL_VALUES[field as PaymentResponseField] ?? `${field}-${n}`);
  }
  return response;
}
