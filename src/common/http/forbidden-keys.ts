/**
 * Where a parsed JSON value holds a key that could poison prototypes: `__proto__`, or
 * `constructor` with a `prototype` inside (what secure-json-parse refuses). The path names it as
 * the error envelope names fields: dotted, with [i] for list items. JSON.parse keeps such keys as
 * plain own properties, so they can be found by walking the value.
 */
export function forbiddenKeyPath(value: unknown, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = forbiddenKeyPath(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    const field = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return at;
    if (
      key === 'constructor' &&
      typeof field === 'object' &&
      field !== null &&
      Object.keys(field).includes('prototype')
    ) {
      return `${at}.prototype`;
    }
    const found = forbiddenKeyPath(field, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
