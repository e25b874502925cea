import { redactValidationKey } from '../common/masking.js';
import {
  PAYMENT_SESSIONS_ADMIN_PATH,
  PAYMENT_STATUS_PATH,
} from '../payment-status/payment-status.routes.js';

/** Who may reach a path: merchants (`/api`), the operator (`/admin`, `/metrics`) or anyone. */
export type PathPolicy = 'merchant' | 'operator' | 'public';

/** What the pipeline needs to know about a request's path, whatever its spelling. */
export interface PathInfo {
  policy: PathPolicy;
  /** Under the status lookup's path: a miss there is the TRANSACTION_FAILED 404. */
  statusLookup: boolean;
  /** The path as it may be logged: normalised, validation keys cut, at most 512 characters. */
  readonly loggable: string;
}

/** Longest URL written to a log line. */
export const MAX_LOGGED_URL = 512;

const OPERATOR_ROOTS = new Set(['admin', 'metrics']);
const STATUS_SEGMENTS = PAYMENT_STATUS_PATH.split('/');
/**
 * Paths that carry a validation key right after them. Below the status lookup everything that
 * follows is a key as far as the log knows; below the operator's sessions only the first segment
 * is (the rest names the route, like `history`).
 */
const KEY_PREFIXES = [
  { segments: STATUS_SEGMENTS, keySegments: Infinity },
  { segments: PAYMENT_SESSIONS_ADMIN_PATH.split('/'), keySegments: 1 },
];

/**
 * Classifies a request URL the way a router would read it, and more: percent-escapes decoded,
 * `.` and `..` segments resolved, repeated slashes collapsed, case ignored. So `/API/./gateway//
 * payment-status/k` is a merchant request under the status lookup, and its key is never logged,
 * whichever spelling reaches the router.
 */
export function classifyPath(rawUrl: string, contextPath: string): PathInfo {
  const query = rawUrl.indexOf('?');
  const rawPath = query < 0 ? rawUrl : rawUrl.slice(0, query);
  const spelled = rawPath.split('/').filter(Boolean);
  // Most paths are spelled plainly (no escapes, no `.` segments): then the spelling as sent and
  // the resolved path are the same segments, and one reading serves both.
  const plain = !rawPath.includes('%') && !spelled.some(isDotSegment);
  const segments = plain ? spelled : normalisedSegments(rawPath);
  const prefix = prefixSegments(contextPath);
  const local = localSegments(segments, prefix);
  // The spelling as sent counts too: `/api/../health` is a merchant request, whatever it resolves to.
  const policy = plain
    ? policyOf(local)
    : strictest(policyOf(local), policyOf(localSegments(spelled, prefix)));
  const statusLookup = local !== undefined && startsWithIgnoringCase(local, 0, STATUS_SEGMENTS);
  // Built only when a line is written: most answers are not logged at the default level.
  let loggable: string | undefined;
  return {
    policy,
    statusLookup,
    get loggable() {
      return (loggable ??= loggablePath(segments, rawUrl, query));
    },
  };
}

const isDotSegment = (segment: string) => segment === '.' || segment === '..';

let lastContextPath = '';
let lastPrefix: string[] = [];

/** CONTEXT_PATH as segments (it does not change while the process runs: read once). */
function prefixSegments(contextPath: string): string[] {
  if (contextPath !== lastContextPath) {
    lastPrefix = normalisedSegments(contextPath);
    lastContextPath = contextPath;
  }
  return lastPrefix;
}

/** The segments below CONTEXT_PATH, or undefined when the path is not under it. */
function localSegments(segments: string[], prefix: string[]): string[] | undefined {
  if (prefix.length === 0) return segments;
  const under = startsWithIgnoringCase(segments, 0, prefix);
  return under ? segments.slice(prefix.length) : undefined;
}

function policyOf(local: string[] | undefined): PathPolicy {
  const root = local?.[0]?.toLowerCase();
  if (root === 'api') return 'merchant';
  return root !== undefined && OPERATOR_ROOTS.has(root) ? 'operator' : 'public';
}

function strictest(a: PathPolicy, b: PathPolicy): PathPolicy {
  if (a === 'merchant' || b === 'merchant') return 'merchant';
  return a === 'operator' || b === 'operator' ? 'operator' : 'public';
}

function loggablePath(segments: string[], rawUrl: string, query: number): string {
  let shown = segments;
  // Wherever it stands (below CONTEXT_PATH or not), a key-bearing path loses its key.
  for (const { segments: prefix, keySegments } of KEY_PREFIXES) {
    const at = indexIgnoringCase(segments, prefix);
    if (at < 0 || segments.length <= at + prefix.length) continue;
    const start = at + prefix.length;
    const end = Math.min(segments.length, start + keySegments);
    const key = segments.slice(start, end).join('/');
    shown = [...segments.slice(0, start), redactValidationKey(key), ...segments.slice(end)];
    break;
  }
  const path = `/${shown.join('/')}${query < 0 ? '' : rawUrl.slice(query)}`;
  const printable = UNPRINTABLE.test(path) ? path.replace(UNPRINTABLE_ALL, '?') : path;
  return printable.length > MAX_LOGGED_URL
    ? `${printable.slice(0, MAX_LOGGED_URL - 1)}…`
    : printable;
}

const UNPRINTABLE = /[^\x20-\x7e…]/;
const UNPRINTABLE_ALL = /[^\x20-\x7e…]/g;

function normalisedSegments(path: string): string[] {
  const out: string[] = [];
  for (const raw of path.split('/')) {
    const segment = decodeSegment(raw);
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return out;
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether `segments` from `at` on begin with `prefix` (lower case), whatever their case. */
function startsWithIgnoringCase(segments: string[], at: number, prefix: string[]): boolean {
  if (segments.length - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    const segment = segments[at + i];
    if (segment !== prefix[i] && segment.toLowerCase() !== prefix[i].toLowerCase()) return false;
  }
  return true;
}

/** Where `prefix` (lower case) first stands in `segments`, whatever their case; else -1. */
function indexIgnoringCase(segments: string[], prefix: string[]): number {
  for (let at = 0; at + prefix.length <= segments.length; at++) {
    if (startsWithIgnoringCase(segments, at, prefix)) return at;
  }
  return -1;
}
