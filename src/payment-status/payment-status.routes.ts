/** Where merchants look up a payment session; the HTTP layer answers anything below it as a miss. */
export const PAYMENT_STATUS_PATH = 'api/gateway/payment-status';

/** Operator routes of payment sessions. */
export const PAYMENT_SESSIONS_ADMIN_PATH = 'admin/payment-sessions';
