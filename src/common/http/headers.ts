/**
 * The value of the first of the given headers that is present. Node joins repeated headers with
 * ", " or keeps them as an array; either way a repeated value is returned as given, so a
 * validator refuses it rather than picking one.
 */
export function headerValue(
  headers: Record<string, unknown>,
  ...names: string[]
): string | undefined {
  for (const name of names) {
    const value = headers[name];
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.join(', ');
  }
  return undefined;
}
