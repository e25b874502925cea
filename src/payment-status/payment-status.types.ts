export const PAYMENT_STATUSES = ['SUCCESSFUL', 'PENDING', 'NOT_COMPLETED', 'FAILED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** SUCCESSFUL and FAILED never change once reported. */
export const FINAL_STATUSES: readonly PaymentStatus[] = ['SUCCESSFUL', 'FAILED'];

export function isFinal(status: PaymentStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

/** Longest validation key that can exist; longer ones get the not-found answer. */
export const MAX_VALIDATION_KEY_LENGTH = 255;

/**
 * A validation key the operator API, init-iframe and seed files accept: 1 to 255 printable ASCII
 * characters (space to `~`) without `/`, so a key is one path segment and never carries control
 * characters; and not `.` or `..`, which no URL can carry as a segment: every client and router
 * reads them as dot segments, however escaped (docs/decisions.md, "Validation keys").
 */
export const VALIDATION_KEY_PATTERN = new RegExp(
  `^(?!\\.\\.?$)[\\x20-\\x2e\\x30-\\x7e]{1,${MAX_VALIDATION_KEY_LENGTH}}$`,
);
export const VALIDATION_KEY_RULE = `must be 1 to ${MAX_VALIDATION_KEY_LENGTH} printable ASCII characters without "/", and not "." or ".."`;

export const VALIDATION_KEY_DESCRIPTION = `1 to ${MAX_VALIDATION_KEY_LENGTH} printable ASCII characters (space to ~) without "/", and not "." or ".."; percent-encoded in a URL.`;

export function isValidationKey(value: unknown): value is string {
  return typeof value === 'string' && VALIDATION_KEY_PATTERN.test(value);
}
