import { MoneyView, StoredMoney, moneyView } from '../common/money.js';
import { maskAccountNumber } from '../common/masking.js';
import type { PaymentResponseInputDto } from './dto/payment-report.dto.js';
import type { PaymentResponseDto, PaymentStatusElement } from './dto/payment-status-view.dto.js';
import { toMinorUnits } from '../common/money.js';
import type { PaymentStatus } from './payment-status.types.js';

const MONEY_FIELDS = [
  'sourceMoney',
  'destinationMoney',
  'totalFees',
  'money',
  'requestedMoney',
] as const;
const TEXT_FIELDS = [
  'traceId',
  'description',
  'clientReference',
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
] as const;

type MoneyField = (typeof MONEY_FIELDS)[number];
type TextField = (typeof TEXT_FIELDS)[number];

/** The payment response as stored: money in minor units, accountNumber masked, fixed key order. */
export type StoredPaymentResponse = Partial<Record<MoneyField, StoredMoney>> &
  Partial<Record<TextField, string>>;

/** What is stored for a session besides its key and merchant. */
export interface StoredReport {
  status: PaymentStatus;
  detailedStatus: string | null;
  errorMessage: string | null;
  paymentResponse: string | null;
}

/**
 * Turns a validated payment response into its stored form. The account number is masked here,
 * before anything is written, so the clear value never reaches the database.
 */
export function toStoredPaymentResponse(input: PaymentResponseInputDto): StoredPaymentResponse {
  const stored: StoredPaymentResponse = {};
  for (const field of MONEY_FIELDS) {
    const money = input[field];
    if (money !== undefined) {
      const amountMinor = toMinorUnits(money.amount);
      if (amountMinor === undefined) throw new Error(`${field}.amount was not validated`);
      stored[field] = { amountMinor, currency: money.currency };
    }
  }
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    if (value !== undefined) {
      stored[field] = field === 'accountNumber' ? maskAccountNumber(value) : value;
    }
  }
  return stored;
}

function toPaymentResponseView(
  validationKey: string,
  stored: StoredPaymentResponse,
): PaymentResponseDto {
  const view: Record<string, string | MoneyView> = {};
  for (const field of MONEY_FIELDS) {
    const money = stored[field];
    if (money) view[field] = moneyView(money);
  }
  for (const field of TEXT_FIELDS) {
    const value = stored[field];
    if (value !== undefined) view[field] = value;
    if (field === 'clientReference') view.validationKey = validationKey;
  }
  return view as unknown as PaymentResponseDto;
}

/** The single payload element of section 3; absent optional fields are omitted, never null. */
export function buildStatusElement(
  validationKey: string,
  report: StoredReport,
): PaymentStatusElement {
  switch (report.status) {
    case 'SUCCESSFUL':
      return {
        status: 'SUCCESSFUL',
        paymentResponse: toPaymentResponseView(
          validationKey,
          JSON.parse(report.paymentResponse ?? '{}') as StoredPaymentResponse,
        ),
      };
    case 'PENDING':
      return { status: 'PENDING' };
    case 'NOT_COMPLETED':
      return report.detailedStatus === null
        ? { status: 'NOT_COMPLETED' }
        : { status: 'NOT_COMPLETED', detailedStatus: report.detailedStatus };
    case 'FAILED':
      return report.detailedStatus === null
        ? { status: 'FAILED', errorMessage: report.errorMessage ?? '' }
        : {
            status: 'FAILED',
            errorMessage: report.errorMessage ?? '',
            detailedStatus: report.detailedStatus,
          };
  }
}
