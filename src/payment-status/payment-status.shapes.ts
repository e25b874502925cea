import { MoneyView, StoredMoney, moneyView, toMinorUnits } from '../common/money.js';
import { maskAccountNumber } from '../common/masking.js';
import type { PaymentResponseInputDto } from './dto/payment-report.dto.js';
import type { PaymentResponseDto, PaymentStatusElement } from './dto/payment-status-view.dto.js';
import { MoneyField, PAYMENT_RESPONSE_ENTRIES, TextField } from './payment-response.fields.js';
import type { PaymentStatus } from './payment-status.types.js';

/** The payment response as stored: money in minor units, the account number masked. */
export type StoredPaymentResponse = { [K in MoneyField]?: StoredMoney } & {
  [K in TextField]?: string;
};

/** The payment response as the merchant sees it. */
type PaymentResponseView = { [K in MoneyField]?: MoneyView } & { [K in TextField]?: string } & {
  validationKey: string;
};

/** What is stored for a session besides its key and merchant. */
export interface StoredReport {
  status: PaymentStatus;
  detailedStatus: string | null;
  errorMessage: string | null;
  paymentResponse: string | null;
}

/**
 * Turns a validated payment response into its stored form, fields in the order of
 * PAYMENT_RESPONSE_FIELDS. The account number is masked here, before anything is written, so the
 * clear value never reaches the database.
 */
export function toStoredPaymentResponse(input: PaymentResponseInputDto): StoredPaymentResponse {
  const stored: StoredPaymentResponse = {};
  for (const entry of PAYMENT_RESPONSE_ENTRIES) {
    switch (entry.kind) {
      case 'money': {
        const money = input[entry.field];
        if (money === undefined) break;
        const amountMinor = toMinorUnits(money.amount);
        if (amountMinor === undefined) throw new Error(`${entry.field}.amount was not validated`);
        stored[entry.field] = { amountMinor, currency: money.currency };
        break;
      }
      case 'text':
      case 'masked': {
        const value = input[entry.field];
        if (value === undefined) break;
        stored[entry.field] = entry.kind === 'masked' ? maskAccountNumber(value) : value;
        break;
      }
      case 'sessionKey':
        break;
    }
  }
  return stored;
}

function toPaymentResponseView(
  validationKey: string,
  stored: StoredPaymentResponse,
): PaymentResponseDto {
  const view: Partial<PaymentResponseView> = {};
  for (const entry of PAYMENT_RESPONSE_ENTRIES) {
    switch (entry.kind) {
      case 'money': {
        const money = stored[entry.field];
        if (money) view[entry.field] = moneyView(money);
        break;
      }
      case 'text':
      case 'masked': {
        const value = stored[entry.field];
        if (value !== undefined) view[entry.field] = value;
        break;
      }
      case 'sessionKey':
        view[entry.field] = validationKey;
        break;
    }
  }
  const complete: PaymentResponseView = { ...view, validationKey };
  // A SUCCESSFUL report is refused without SUCCESSFUL_REQUIRED_FIELDS, so its stored form has them.
  return complete as PaymentResponseDto;
}

/**
 * The fields of a stored payment response as the API shows them (money as `{amount, currency,
 * presentationAmount}`), without the session's key: what the audit trail names as changed.
 */
export function shownPaymentResponse(stored: string): Record<string, unknown> {
  const view: Record<string, unknown> = {
    ...toPaymentResponseView('', JSON.parse(stored) as StoredPaymentResponse),
  };
  delete view.validationKey;
  return view;
}

/**
 * The body of a callback: the status element made flat, always with `status` and `validationKey`
 * at the top (what existing integrations read). SUCCESSFUL carries every field of its payment
 * response; the others `detailedStatus` and `errorMessage` when they have them.
 */
export function callbackBody(validationKey: string, report: StoredReport): string {
  const element = buildStatusElement(validationKey, report);
  if (element.status === 'SUCCESSFUL') {
    return JSON.stringify({ status: element.status, ...element.paymentResponse });
  }
  const { status, ...rest } = element;
  const detailedStatus = 'detailedStatus' in rest ? rest.detailedStatus : undefined;
  const errorMessage = 'errorMessage' in rest ? rest.errorMessage : undefined;
  return JSON.stringify({ status, validationKey, detailedStatus, errorMessage });
}

/** The single payload element of a status answer; absent optional fields are omitted, never null. */
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
