export const PAYMENT_STATUSES = ['SUCCESSFUL', 'PENDING', 'NOT_COMPLETED', 'FAILED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** SUCCESSFUL and FAILED never change once reported. */
export const FINAL_STATUSES: readonly PaymentStatus[] = ['SUCCESSFUL', 'FAILED'];

export function isFinal(status: PaymentStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

/** Longest validation key that can exist; longer ones get the not-found answer. */
export const MAX_VALIDATION_KEY_LENGTH = 255;
