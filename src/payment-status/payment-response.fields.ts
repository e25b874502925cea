import type { PaymentResponseInputDto, MoneyInputDto } from './dto/payment-report.dto.js';
import type { MoneyDto, PaymentResponseDto } from './dto/payment-status-view.dto.js';

/**
 * How each field of `paymentResponse` is kept and shown:
 * - `money`: stored in integer minor units, shown as {amount, currency, presentationAmount};
 * - `text`: stored and shown as given;
 * - `masked`: masked before it is stored (account numbers);
 * - `sessionKey`: never stored; always the session's own key.
 */
type FieldKind = 'money' | 'text' | 'masked' | 'sessionKey';

/**
 * Every key of the answer's DTO and of the operator's input DTO must be listed, with a kind that
 * fits its type (money fields are money on both sides); a key missing from either DTO, or one
 * listed here but declared in neither, does not compile.
 */
type FieldKinds<View, Input> = {
  [K in keyof View & keyof Input]-?: NonNullable<View[K]> extends MoneyDto
    ? NonNullable<Input[K]> extends MoneyInputDto
      ? 'money'
      : never
    : Exclude<FieldKind, 'money'>;
} & Record<Exclude<keyof View, keyof Input> | Exclude<keyof Input, keyof View>, never>;

/**
 * The fields of `paymentResponse`, in the order the answer lists them: the one source for
 * storing, showing, documenting and testing them.
 */
export const PAYMENT_RESPONSE_FIELDS = {
  sourceMoney: 'money',
  destinationMoney: 'money',
  totalFees: 'money',
  money: 'money',
  requestedMoney: 'money',
  traceId: 'text',
  description: 'text',
  clientReference: 'text',
  validationKey: 'sessionKey',
  responseCode: 'text',
  transactionReference: 'text',
  paymentType: 'text',
  paymentMethod: 'text',
  customerAccountNumber: 'text',
  accountNumber: 'masked',
  customerDob: 'text',
  customerFirstName: 'text',
  customerLastName: 'text',
  senderEmailAddress: 'text',
  customerCountryCode: 'text',
} as const satisfies FieldKinds<PaymentResponseDto, PaymentResponseInputDto>;

type Fields = typeof PAYMENT_RESPONSE_FIELDS;
export type PaymentResponseField = keyof Fields;
export type MoneyField = {
  [K in keyof Fields]: Fields[K] extends 'money' ? K : never;
}[keyof Fields];
export type TextField = {
  [K in keyof Fields]: Fields[K] extends 'text' | 'masked' ? K : never;
}[keyof Fields];

/** One field with its kind, so that a switch on the kind narrows the field's type. */
export type FieldEntry =
  | { kind: 'money'; field: MoneyField }
  | { kind: 'text' | 'masked'; field: TextField }
  | { kind: 'sessionKey'; field: 'validationKey' };

export const PAYMENT_RESPONSE_ENTRIES = Object.entries(PAYMENT_RESPONSE_FIELDS).map(
  ([field, kind]) => ({ field, kind }),
) as FieldEntry[];

/** Fields a SUCCESSFUL report must carry in its paymentResponse. */
export const SUCCESSFUL_REQUIRED_FIELDS = [
  'transactionReference',
  'money',
  'sourceMoney',
  'destinationMoney',
  'totalFees',
  'traceId',
] as const satisfies readonly PaymentResponseField[];

/**
 * The personal fields of a payment response (docs/operators.md, "Personal data"): erased from
 * every copy once the session has been final for PERSONAL_DATA_RETENTION_DAYS, or when the
 * operator asks; never written to the audit trail or a log.
 */
export const PERSONAL_FIELDS = [
  'customerFirstName',
  'customerLastName',
  'customerDob',
  'senderEmailAddress',
  'customerAccountNumber',
  'accountNumber',
  'customerCountryCode',
] as const satisfies readonly PaymentResponseField[];
