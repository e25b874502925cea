/** Merchant ids: short, URL-safe, starting with a letter or digit. */
export const MERCHANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const MERCHANT_ID_RULE =
  'must be 1 to 64 of the characters A-Z a-z 0-9 _ . - (starting with a letter or digit)';
