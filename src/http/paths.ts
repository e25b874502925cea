import { redactValidationKey } from '../common/masking.js';

/** Longest URL written to a log line. */
export const MAX_LOGGED_URL = 512;

/** The path of a request target, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * The path a router is given for a request target: the path it means, read as leniently as any
 * client or intermediary might (escapes decoded, `\` taken for `/`, `;parameters` dropped, `.`
 * and `..` resolved, empty segments skipped), each segment escaped again; the query as sent. The
 * routers then read every spelling alike, and the access guard finds whether the target spells
 * the route it reached (see access.guard.ts). Undefined when the target is already plain.
 */
export function routableUrl(url: string): string | undefined {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!ODD_PATH.test(path)) return undefined;
  const out: string[] = [];
  for (const raw of path.split(/[/\\]/)) {
    const parameters = raw.indexOf(';');
    const segment = decodeSegment(parameters < 0 ? raw : raw.slice(0, parameters));
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(encodeURIComponent(segment));
  }
  return `/${out.join('/')}${query < 0 ? '' : url.slice(query)}`;
}

/** An escape, a `\`, a `;`, an empty segment, a dot segment or a trailing slash. */
const ODD_PATH = /[%\\;]|\/\/|\/\.\.?(?:\/|$)|.\/$/;

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A request target as a log line may show it: every path segment and query name that is not a
 * word of some route is cut like a validation key (its first characters and `…`), and so is every
 * query value. Whatever the spelling, an identifier in the URL (a validation key, an API key put
 * where it does not belong) is never written whole; the route words say what was asked.
 */
export function loggableUrl(url: string, isRouteWord: (word: string) => boolean): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  let shown = path
    .split('/')
    .map((segment) => (isShownWord(segment, isRouteWord) ? segment : redactValidationKey(segment)))
    .join('/');
  if (query >= 0) {
    const pairs = url
      .slice(query + 1)
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        const name = equals < 0 ? pair : pair.slice(0, equals);
        const shownName = isShownWord(name, isRouteWord) ? name : redactValidationKey(name);
        return equals < 0
          ? shownName
          : `${shownName}=${redactValidationKey(pair.slice(equals + 1))}`;
      });
    shown += `?${pairs.join('&')}`;
  }
  const printable = UNPRINTABLE.test(shown) ? shown.replace(UNPRINTABLE_ALL, '?') : shown;
  return printable.length > MAX_LOGGED_URL
    ? `${printable.slice(0, MAX_LOGGED_URL - 1)}…`
    : printable;
}

/** Empty and dot segments cannot hold an identifier: they are shown as they are. */
function isShownWord(word: string, isRouteWord: (word: string) => boolean): boolean {
  return word === '' || word === '.' || word === '..' || isRouteWord(word);
}

const UNPRINTABLE = /[^\x20-\x7e…]/;
const UNPRINTABLE_ALL = /[^\x20-\x7e…]/g;
