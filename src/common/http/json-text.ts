import { isUtf8 } from 'node:buffer';
import { parse as parseLossless } from 'lossless-json';

/**
 * A JSON number whose text is not the shortest form of the double it reads as (`1.50`,
 * `1e-400`, `0.30000000000000001`, `-0`): kept as the text the client sent, so that rules about
 * its digits (money: at most two decimals) judge what was sent, not what a double rounded it to.
 * Every other number is a plain number. A field that wants a plain number refuses this object.
 */
export class JsonNumberText {
  constructor(readonly text: string) {}
}

/** A JSON number's text as the value a body holds: a number, or the text kept (JsonNumberText). */
export function jsonNumberOf(text: string): number | JsonNumberText {
  const value = Number(text);
  return String(value) === text ? value : new JsonNumberText(text);
}

/**
 * Parses JSON text, with numbers as jsonNumberOf reads them. A name given twice in one object is
 * refused (a SyntaxError naming it): which of the two values counts would depend on the parser,
 * and two parsers of one request must not disagree (RFC 7493, I-JSON). `__proto__` is kept as an
 * ordinary member (see hasPrototypeKey for the refusal).
 */
export function parseJsonText(text: string): unknown {
  return parseLossless(text, undefined, jsonNumberOf);
}

/** The first lone-surrogate character standing for an undecodable byte (see decodeUtf8). */
const ESCAPED_BYTE_BASE = 0xdc80;

/**
 * Decodes UTF-8. A byte that is not part of a valid UTF-8 sequence becomes a lone low surrogate
 * (U+DC80 + the byte's low 7 bits, as Python's "surrogateescape" does) rather than U+FFFD: a text
 * field holding one is then refused with its name (see textRefusal), and a real U+FFFD sent by the
 * client is not mistaken for one.
 */
export function decodeUtf8(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let text = '';
  let runStart = 0;
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    text +=
      bytes.toString('utf8', runStart, i) +
      String.fromCharCode(ESCAPED_BYTE_BASE + (bytes[i] & 0x7f));
    i++;
    runStart = i;
  }
  return text + bytes.toString('utf8', runStart);
}

/** The length of the valid UTF-8 sequence starting at `i` (RFC 3629), or 0 when there is none. */
function sequenceLength(bytes: Buffer, i: number): number {
  const first = bytes[i];
  if (first < 0x80) return 1;
  const continuation = (at: number, low = 0x80, high = 0xbf) =>
    at < bytes.length && bytes[at] >= low && bytes[at] <= high;
  if (first >= 0xc2 && first <= 0xdf) return continuation(i + 1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const low = first === 0xe0 ? 0xa0 : 0x80;
    const high = first === 0xed ? 0x9f : 0xbf;
    return continuation(i + 1, low, high) && continuation(i + 2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const low = first === 0xf0 ? 0x90 : 0x80;
    const high = first === 0xf4 ? 0x8f : 0xbf;
    return continuation(i + 1, low, high) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}

/** C0 controls, DEL and C1 controls: nothing a name, a reference or a message holds. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The rule a text value breaks, if any: invalid UTF-8, a lone surrogate, a control character. */
export const TEXT_RULE =
  'must be text without control characters, lone surrogates or bytes that are not UTF-8';

/** Why a string may not be stored as it is, or undefined. */
export function textRefusal(value: string): string | undefined {
  return LONE_SURROGATE.test(value) || CONTROL_CHARACTER.test(value) ? TEXT_RULE : undefined;
}

/**
 * The fields of a parsed value whose text breaks TEXT_RULE, each named by its path below `path`
 * (`client.firstName`; array elements `items.2.name`, or `items[2].name` with `brackets`), in
 * document order.
 */
export function textFieldRefusals(
  value: unknown,
  path = '',
  indexStyle: 'dots' | 'brackets' = 'dots',
): { field: string; message: string }[] {
  if (typeof value === 'string') {
    const message = textRefusal(value);
    return message === undefined ? [] : [{ field: path, message }];
  }
  if (typeof value !== 'object' || value === null || value instanceof JsonNumberText) return [];
  const refusals: { field: string; message: string }[] = [];
  const isArray = Array.isArray(value);
  for (const [key, member] of Object.entries(value)) {
    const below =
      isArray && indexStyle === 'brackets'
        ? `${path}[${key}]`
        : path === ''
          ? key
          : `${path}.${key}`;
    refusals.push(...textFieldRefusals(member, below, indexStyle));
  }
  return refusals;
}
