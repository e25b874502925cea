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
  const segments = normalisedSegments(rawPath);
  const prefix = contextPath === '' ? [] : normalisedSegments(contextPath);
  const local = localSegments(segments, prefix);
  // The spelling as sent counts too: `/api/../health` is a merchant request, whatever it resolves to.
  const policy = strictest(
    policyOf(local),
    policyOf(localSegments(rawPath.split('/').filter(Boolean), prefix)),
  );
  const statusLookup = local !== undefined && startsWith(lowered(local), STATUS_SEGMENTS);
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

/** The segments below CONTEXT_PATH, or undefined when the path is not under it. */
function localSegments(segments: string[], prefix: string[]): string[] | undefined {
  const under = prefix.every((s, i) => segments[i]?.toLowerCase() === s.toLowerCase());
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

const lowered = (segments: string[]) => segments.map((s) => s.toLowerCase());

function loggablePath(segments: string[], rawUrl: string, query: number): string {
  let shown = segments;
  const lower = lowered(segments);
  // Wherever it stands (below CONTEXT_PATH or not), a key-bearing path loses its key.
  for (const { segments: prefix, keySegments } of KEY_PREFIXES) {
    const at = lower.findIndex((_s, i) => startsWith(lower.slice(i), prefix));
    if (at < 0 || segments.length <= at + prefix.length) continue;
    const start = at + prefix.length;
    const end = Math.min(segments.length, start + keySegments);
    const key = segments.slice(start, end).join('/');
    shown = [...segments.slice(0, start), redactValidationKey(key), ...segments.slice(end)];
    break;
  }
  const path = `/${shown.join('/')}${query < 0 ? '' : rawUrl.slice(query)}`;
  const printable = path.replace(/[^\x20-\x7e…]/g, '?');
  return printable.length > MAX_LOGGED_URL
    ? `${printable.slice(0, MAX_LOGGED_URL - 1)}…`
    : printable;
}

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

function startsWith(segments: string[], prefix: string[]): boolean {
  return prefix.every((s, i) => segments[i] === s);
}
