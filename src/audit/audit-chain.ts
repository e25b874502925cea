import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AuditKeyring } from './audit-keys.js';

/** Where a chain starts: the link before the first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** Who acted: ADMIN_TOKEN, the service itself, an operator, or a caller not recognised. */
export const ACTOR_KINDS = ['root', 'system', 'operator', 'unknown'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** The action of the event that carries an unkeyed chain over to keyed links. */
export const KEY_CHAIN_ACTION = 'keyAuditChain';

/** What an event says; its link covers all of it, the previous event's link included. */
export interface AuditContent {
  /** Position in the one chain: 1, 2, 3… */
  seq: number;
  /** ISO 8601 time, milliseconds, UTC. */
  at: string;
  actorKind: ActorKind;
  /** `root`, `system`, the operator's id; null when the caller was not recognised. */
  operatorId: string | null;
  /** `root`, `system`, the operator's name, or `unknown`. */
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
  /** Why a refused request was refused (`revoked`, `unknown_token`…); null for a change. */
  reason: string | null;
  /** The id of the audit key that made this link; null for a link made before the chain was keyed. */
  keyId: string | null;
  prevHash: string;
}

export interface AuditEvent extends AuditContent {
  /** The link: HMAC-SHA256 of the content under the key `keyId`, hex. */
  hash: string;
}

/**
 * An event as read back from storage. The service writes `changes` as a JSON object; a row
 * whose stored changes are anything else (not JSON, an array, a number) was altered, and reads
 * back with `changes` null, for the checks to name rather than fail on.
 */
export interface StoredAuditEvent extends Omit<AuditEvent, 'changes'> {
  changes: AuditEvent['changes'] | null;
}

/** The stored text of an event's changes as read back: the object, or null when it is not one. */
export function storedChanges(text: unknown): AuditEvent['changes'] | null {
  let value: unknown;
  try {
    value = JSON.parse(String(text));
  } catch {
    return null;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as AuditEvent['changes'])
    : null;
}

/** The link of an event: HMAC-SHA256 of its canonical content under the audit key, hex. */
export function linkOf(content: AuditContent, key: Buffer): string {
  return createHmac('sha256', key).update(canonicalJson(content)).digest('hex');
}

/**
 * The link of an event written before the chain was keyed: SHA-256 of the content it had then
 * (no actor kind, reason or key id), hex. Only ever verified, never made.
 */
export function unkeyedLinkOf(content: AuditContent): string {
  const before: Partial<AuditContent> = { ...content };
  delete before.actorKind;
  delete before.reason;
  delete before.keyId;
  return createHash('sha256').update(canonicalJson(before)).digest('hex');
}

/** The actor kind an event written before kinds were recorded stands for. */
export function kindOfUnkeyed(operatorId: string | null): ActorKind {
  if (operatorId === null) return 'unknown';
  return operatorId === 'root' || operatorId === 'system' ? operatorId : 'operator';
}

/**
 * JSON with object keys in sorted order (UTF-16 code units, as `<` compares strings): the same
 * content always gives the same bytes. On the write path of every audited change, so written
 * without the arrays of entries a generic version sorts and joins.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  // Array.prototype.sort's default order is the code-unit order of `<` on strings.
  const keys = Object.keys(record).sort();
  let json = '{';
  let first = true;
  for (const key of keys) {
    const field = record[key];
    if (field === undefined) continue;
    json += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(field)}`;
    first = false;
  }
  return `${json}}`;
}

/** The first link that does not hold, and why. */
export interface BrokenLink {
  seq: number;
  reason: string;
}

const HEX_LINK = /^[0-9a-f]{64}$/;

function sameLink(stored: string, computed: string): boolean {
  return (
    HEX_LINK.test(stored) &&
    timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(computed, 'hex'))
  );
}

/**
 * Checks the chain event by event, in chain order, from its first event. An event holds when it
 * follows the one before (next sequence number, its link as previous link) and its own link is
 * its content's under the key it names. Links made before the chain was keyed (plain SHA-256, no
 * key id) hold only as the chain's first events, carried over by a keyed `keyAuditChain` event of
 * `system` right after them: without the key nobody can write that event, so nobody can extend,
 * shorten or rewrite the unkeyed part, or pass keyed events off as unkeyed ones.
 */
export class ChainCheck {
  private expectedSeq = 1;
  private expectedPrev = GENESIS_HASH;
  /** Unkeyed events seen and not yet carried over by a keyed event. */
  private unkeyed = 0;
  private keyed = false;

  constructor(private readonly keys: AuditKeyring) {}

  /** The event's broken link, if it does not hold. */
  next(stored: StoredAuditEvent): BrokenLink | undefined {
    const broken = (reason: string) => ({ seq: stored.seq, reason });
    if (stored.seq !== this.expectedSeq) {
      return broken(`follows event ${this.expectedSeq - 1}, whose next is missing`);
    }
    if (stored.prevHash !== this.expectedPrev) {
      return broken('its previous link is not the link of the event before');
    }
    if (stored.changes === null) {
      return broken('its changes are not stored as a JSON object: it was altered');
    }
    const event = stored as AuditEvent;
    const { hash, ...content } = event;
    if (event.keyId === null) {
      if (this.keyed) return broken('its link is not keyed, but the chain was keyed before it');
      if (
        event.reason !== null ||
        event.actorKind !== kindOfUnkeyed(event.operatorId) ||
        !sameLink(hash, unkeyedLinkOf(content))
      ) {
        return broken('its content does not match its link: it was altered');
      }
      this.unkeyed++;
    } else {
      const key = this.keys.find(event.keyId);
      if (!key) {
        return broken(
          `its link was made with the audit key ${event.keyId}, which this service does not hold`,
        );
      }
      if (!sameLink(hash, linkOf(content, key))) {
        return broken('its content does not match its link: it was altered');
      }
      if (
        this.unkeyed > 0 &&
        !(event.action === KEY_CHAIN_ACTION && event.actorKind === 'system')
      ) {
        return broken('it follows unkeyed events that no keyed event carried over');
      }
      this.unkeyed = 0;
      this.keyed = true;
    }
    this.expectedSeq = event.seq + 1;
    this.expectedPrev = hash;
    return undefined;
  }

  /** At the end of the chain: unkeyed events that nothing carried over do not hold. */
  end(): BrokenLink | undefined {
    if (this.unkeyed === 0) return undefined;
    return {
      seq: this.expectedSeq - this.unkeyed,
      reason: 'its link is not keyed, and no keyed event carries it over',
    };
  }
}

/** Checks a whole run of events read in chain order (the first link that does not hold). */
export function firstBrokenLink(
  events: readonly StoredAuditEvent[],
  keys: AuditKeyring,
): BrokenLink | undefined {
  const check = new ChainCheck(keys);
  for (const event of events) {
    const broken = check.next(event);
    if (broken) return broken;
  }
  return check.end();
}
