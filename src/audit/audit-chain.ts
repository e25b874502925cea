import { createHash } from 'node:crypto';

/** Where a chain starts: the hash before the first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** What an event says; its hash covers all of it and the hash of the event before. */
export interface AuditContent {
  /** Position in the one chain: 1, 2, 3… */
  seq: number;
  /** ISO 8601 time, milliseconds, UTC. */
  at: string;
  /** The operator's id (`root` for ADMIN_TOKEN); null when the caller was not recognised. */
  operatorId: string | null;
  /** The operator's name (`root`, or `unknown` when not recognised). */
  operatorName: string;
  /** The operationId of the route, or `unknownRoute` for a path no route serves. */
  action: string;
  /** What was acted on (a merchant id, a key id, a validation key…); null when nothing. */
  target: string | null;
  /** The HTTP status the request was answered with. */
  outcome: number;
  requestId: string | null;
  /** The fields changed, each with its old and new value; secrets and personal data redacted. */
  changes: Record<string, { old: unknown; new: unknown }>;
  prevHash: string;
}

export interface AuditEvent extends AuditContent {
  hash: string;
}

/** The SHA-256 of an event's content (which includes the previous event's hash), hex. */
export function hashOf(content: AuditContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

/** JSON with object keys in sorted order: the same content always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
}

/** The first link that does not hold, and why. */
export interface BrokenLink {
  seq: number;
  reason: string;
}

/**
 * Checks a run of events read in chain order, continuing from `previous` (the event before the
 * run; none for the start of the chain). The first link that does not hold: a stored hash that is
 * not its content's, a previous hash that is not the previous event's, a gap or a repeat in the
 * sequence.
 */
export function firstBrokenLink(
  events: readonly AuditEvent[],
  previous?: Pick<AuditEvent, 'seq' | 'hash'>,
): BrokenLink | undefined {
  let expectedSeq = (previous?.seq ?? 0) + 1;
  let expectedPrev = previous?.hash ?? GENESIS_HASH;
  for (const event of events) {
    if (event.seq !== expectedSeq) {
      return { seq: event.seq, reason: `follows event ${expectedSeq - 1}, whose next is missing` };
    }
    if (event.prevHash !== expectedPrev) {
      return { seq: event.seq, reason: 'its previous hash is not the hash of the event before' };
    }
    const { hash, ...content } = event;
    if (hashOf(content) !== hash) {
      return { seq: event.seq, reason: 'its content does not match its hash: it was altered' };
    }
    expectedSeq = event.seq + 1;
    expectedPrev = hash;
  }
  return undefined;
}
