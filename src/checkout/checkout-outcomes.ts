import type { PaymentStatus } from '../payment-status/payment-status.types.js';

/** The detailed statuses a checkout ends with when no payment was made. */
export const ABANDONED_BY_USER = 'ABANDONED_BY_USER';
export const EXPIRED = 'EXPIRED';

/**
 * Why a payment failed, as the sandbox's tester picks it: the detailedStatus stored, and the
 * errorMessage the merchant reads (in English, as the status lookup answers).
 */
export const FAILURE_REASONS = {
  INSUFFICIENT_FUNDS: 'Insufficient funds',
  DECLINED: 'Payment declined',
  LIMIT_EXCEEDED: 'Amount over the limit of this payment method',
  TECHNICAL_ERROR: 'Technical error at the payment processor',
} as const;
export type FailureReason = keyof typeof FAILURE_REASONS;
export const FAILURE_REASON_CODES = Object.keys(FAILURE_REASONS) as FailureReason[];

/** What the widget calls when the payment ends: `success`, `fail` or `cancel` (then `complete`). */
export type WidgetOutcome = 'success' | 'fail' | 'cancel';

/**
 * The widget's callback for a session that is no longer PENDING: SUCCESSFUL is success, FAILED
 * is fail, NOT_COMPLETED is cancel when the customer cancelled and fail otherwise (expired, or a
 * processor's report).
 */
export function widgetOutcomeOf(
  status: PaymentStatus,
  detailedStatus: string | null,
): WidgetOutcome | undefined {
  switch (status) {
    case 'PENDING':
      return undefined;
    case 'SUCCESSFUL':
      return 'success';
    case 'FAILED':
      return 'fail';
    case 'NOT_COMPLETED':
      return detailedStatus === ABANDONED_BY_USER ? 'cancel' : 'fail';
  }
}
