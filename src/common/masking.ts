/**
 * Account number masking: the first 4 and the last 4 characters stay and every
 * character between becomes X; with 8 characters or fewer, all but the last 4 become X.
 */
export function maskAccountNumber(value: string): string {
  const chars = Array.from(value);
  const n = chars.length;
  if (n <= 8) {
    const keep = Math.min(4, n);
    return 'X'.repeat(n - keep) + chars.slice(n - keep).join('');
  }
  return chars.slice(0, 4).join('') + 'X'.repeat(n - 8) + chars.slice(n - 4).join('');
}

/**
 * How a validation key appears in logs: its first 6 characters and an ellipsis. A key of 12
 * characters or fewer shows only its first half, so a log never holds a whole key.
 */
export function redactValidationKey(key: string): string {
  // Without surrogate pairs, characters and UTF-16 units are the same: no need to split.
  if (!SURROGATE.test(key)) return `${key.slice(0, Math.min(6, Math.floor(key.length / 2)))}…`;
  const chars = Array.from(key);
  return `${chars.slice(0, Math.min(6, Math.floor(chars.length / 2))).join('')}…`;
}

const SURROGATE = /[\uD800-\uDFFF]/;
