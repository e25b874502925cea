import { redactValidationKey } from '../common/masking.js';

/** Longest URL written to a log line. */
export const MAX_LOGGED_URL = 512;

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
