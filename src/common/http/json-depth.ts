/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * True when the JSON text nests arrays or objects deeper than `max`. A linear scan that skips
 * strings, so it runs before parsing: a body of thousands of nested brackets never reaches the
 * parser, the transformer or the validator (which recurse).
 */
export function nestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
