import { createHash, randomBytes } from 'node:crypto';
import {
  AuditContent,
  AuditEvent,
  GENESIS_HASH,
  KEY_CHAIN_ACTION,
  canonicalJson,
  firstBrokenLink,
  linkOf,
  type StoredAuditEvent,
  storedChanges,
  unkeyedLinkOf,
} from './audit-chain.js';
import { AuditKeyring, auditKeyId } from './audit-keys.js';

const KEY = randomBytes(32);
const keyring = new AuditKeyring(KEY);

function content(seq: number, prevHash: string, keyId: string | null): AuditContent {
  return {
    seq,
    at: `2026-01-01T00:00:${String(seq).padStart(2, '0')}.000Z`,
    actorKind: 'operator',
    operatorId: 'op-1',
    operatorName: 'alice',
    action: 'updateCryptoPair',
    target: String(seq),
    outcome: 200,
    requestId: `req-${seq}`,
    changes: { enabled: { old: true, new: false } },
    reason: null,
    keyId,
    prevHash,
  };
}

/** An event without its link. */
function contentOf(event: AuditEvent): AuditContent {
  const content: Partial<AuditEvent> = { ...event };
  delete content.hash;
  return content as AuditContent;
}

/** Appends `length` events made with `key` to `events` (a new chain when empty). */
function extend(events: AuditEvent[], length: number, key = KEY): AuditEvent[] {
  for (let i = 0; i < length; i++) {
    const last = events[events.length - 1];
    const made = content((last?.seq ?? 0) + 1, last?.hash ?? GENESIS_HASH, auditKeyId(key));
    events.push({ ...made, hash: linkOf(made, key) });
  }
  return events;
}

/** What someone without the key can do: recompute every link from `from` on with a key of theirs. */
function rehash(events: AuditEvent[], from: number, key = randomBytes(32)): void {
  for (let i = from; i < events.length; i++) {
    const made = { ...contentOf(events[i]), prevHash: i === 0 ? GENESIS_HASH : events[i - 1].hash };
    events[i] = { ...made, hash: linkOf(made, key) };
  }
}

/** A chain as it was before keys: SHA-256 links, no kind, reason or key id in the hashed content. */
function unkeyedChain(length: number): AuditEvent[] {
  const events: AuditEvent[] = [];
  for (let seq = 1; seq <= length; seq++) {
    const made = content(seq, events[seq - 2]?.hash ?? GENESIS_HASH, null);
    const before: Record<string, unknown> = { ...made };
    for (const field of ['actorKind', 'reason', 'keyId']) delete before[field];
    const hash = createHash('sha256').update(canonicalJson(before)).digest('hex');
    events.push({ ...made, hash });
  }
  return events;
}

/** The keyed event that carries an unkeyed chain over, as the migration writes it. */
function carryOver(events: AuditEvent[]): AuditEvent[] {
  const last = events[events.length - 1];
  const made: AuditContent = {
    ...content(last.seq + 1, last.hash, keyring.current.id),
    actorKind: 'system',
    operatorId: 'system',
    operatorName: 'system',
    action: KEY_CHAIN_ACTION,
    target: null,
    requestId: null,
    changes: { link: { old: 'SHA-256', new: 'HMAC-SHA256' } },
  };
  events.push({ ...made, hash: linkOf(made, KEY) });
  return events;
}

describe('the audit chain', () => {
  it('writes the same content as the same bytes, whatever the order of its keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    const [event] = extend([], 1);
    const { hash, ...rest } = event;
    const reordered = Object.fromEntries(Object.entries(rest).reverse()) as unknown as AuditContent;
    expect(linkOf(reordered, KEY)).toBe(hash);
  });

  it('writes the bytes of the generic canonical form: keys sorted by code unit, undefined fields left out', () => {
    /** Object.entries, filtered, sorted with `<`, joined: the form the links were made with. */
    const generic = (value: unknown): string => {
      if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
      if (Array.isArray(value)) return `[${value.map(generic).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, field]) => field !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${generic(field)}`).join(',')}}`;
    };
    const samples: unknown[] = [
      {},
      { z: undefined, a: undefined },
      { b: undefined, a: 1 },
      { Z: 1, a: 2, _: 3, '10': 4, '9': 5, é: 6, '😀': 7, ﬀ: 8, '"q"': 9, 'a\u0000b': 10 },
      { at: new Date(0), list: [undefined, null, 1, 'x', { y: undefined, x: [] }], n: -0 },
      {
        changes: {
          'paymentResponse.amount': { old: null, new: '12.50' },
          status: { old: 'PENDING', new: 'FAILED' },
        },
      },
      ['b', { d: 1, c: [{}] }],
      'text',
      12.5,
      true,
      null,
      undefined,
    ];
    for (const sample of samples) expect(canonicalJson(sample)).toBe(generic(sample));
    for (const event of extend([], 3)) expect(canonicalJson(event)).toBe(generic(event));
  });

  it('makes each link an HMAC under the key: another key gives another link', () => {
    const made = content(1, GENESIS_HASH, keyring.current.id);
    expect(linkOf(made, KEY)).toMatch(/^[0-9a-f]{64}$/);
    expect(linkOf(made, randomBytes(32))).not.toBe(linkOf(made, KEY));
    expect(unkeyedLinkOf(made)).not.toBe(linkOf(made, KEY));
  });

  it('holds for an untouched chain', () => {
    expect(firstBrokenLink(extend([], 5), keyring)).toBeUndefined();
    expect(firstBrokenLink([], keyring)).toBeUndefined();
  });

  it.each([
    ['a changed target', (e: AuditEvent[]) => void (e[2].target = 'other'), 3, 'altered'],
    ['changed changes', (e: AuditEvent[]) => void (e[2].changes = {}), 3, 'altered'],
    ['a changed outcome', (e: AuditEvent[]) => void (e[2].outcome = 403), 3, 'altered'],
    ['a changed actor kind', (e: AuditEvent[]) => void (e[1].actorKind = 'root'), 2, 'altered'],
    ['a reason added', (e: AuditEvent[]) => void (e[1].reason = 'revoked'), 2, 'altered'],
    ['a changed time', (e: AuditEvent[]) => void (e[0].at = '2025-01-01T00:00:00.000Z'), 1, ''],
    ['a removed event', (e: AuditEvent[]) => void e.splice(2, 1), 4, 'missing'],
    ['a rewritten link', (e: AuditEvent[]) => void (e[2].hash = 'f'.repeat(64)), 3, 'altered'],
    ['a link that is not hex', (e: AuditEvent[]) => void (e[2].hash = 'x'), 3, 'altered'],
    ['swapped events', (e: AuditEvent[]) => void ([e[1], e[2]] = [e[2], e[1]]), 3, 'missing'],
    ['a key id nobody holds', (e: AuditEvent[]) => void (e[3].keyId = 'ffffffffffffffff'), 4, ''],
  ] as [string, (e: AuditEvent[]) => void, number, string][])(
    'names the first broken link after %s',
    (_label, tamper, seq, reason) => {
      const events = extend([], 5);
      tamper(events);
      const broken = firstBrokenLink(events, keyring);
      expect(broken?.seq).toBe(seq);
      expect(broken?.reason).toContain(reason);
    },
  );

  it('names an event whose stored changes are not a JSON object, never failing on it', () => {
    const events: StoredAuditEvent[] = extend([], 5);
    events[2] = { ...events[2], changes: null };
    expect(firstBrokenLink(events, keyring)).toEqual({
      seq: 3,
      reason: 'its changes are not stored as a JSON object: it was altered',
    });
  });

  it.each(['{not json', '', 'null', '[]', '[{"a":1}]', '12', '"text"', 'true'])(
    'reads back the stored changes %j as null',
    (text) => expect(storedChanges(text)).toBeNull(),
  );

  it('reads back stored changes that are a JSON object as that object', () => {
    expect(storedChanges('{"name":{"old":null,"new":"x"}}')).toEqual({
      name: { old: null, new: 'x' },
    });
    expect(storedChanges('{}')).toEqual({});
  });

  it('refuses every rewrite made without the key, from any event on', () => {
    for (let from = 0; from < 5; from++) {
      const events = extend([], 5);
      events[from].target = 'rewritten';
      rehash(events, from);
      expect(firstBrokenLink(events, keyring)?.seq).toBe(from + 1);
    }
  });

  it('refuses a chain re-hashed as unkeyed SHA-256 links, in whole or from any event on', () => {
    for (let from = 0; from < 5; from++) {
      const events = extend([], 5);
      for (let i = from; i < events.length; i++) {
        const made = {
          ...contentOf(events[i]),
          keyId: null,
          prevHash: events[i - 1]?.hash ?? GENESIS_HASH,
        };
        events[i] = { ...made, hash: unkeyedLinkOf(made) };
      }
      const broken = firstBrokenLink(events, keyring);
      expect(broken).toBeDefined();
      expect(broken!.seq).toBeLessThanOrEqual(from + 1);
    }
  });

  it('keeps events made with a previous key verifiable after a rotation', () => {
    const old = randomBytes(32);
    const events = extend(extend([], 3, old), 3, KEY);
    expect(firstBrokenLink(events, new AuditKeyring(KEY, [old]))).toBeUndefined();
    expect(firstBrokenLink(events, new AuditKeyring(KEY))).toEqual({
      seq: 1,
      reason: `its link was made with the audit key ${auditKeyId(old)}, which this service does not hold`,
    });
  });

  it('derives a key id from the key: stable, short, and telling nothing of the key', () => {
    expect(auditKeyId(KEY)).toMatch(/^[0-9a-f]{16}$/);
    expect(auditKeyId(Buffer.from(KEY))).toBe(auditKeyId(KEY));
    expect(auditKeyId(randomBytes(32))).not.toBe(auditKeyId(KEY));
    expect(KEY.toString('hex')).not.toContain(auditKeyId(KEY));
  });

  describe('carried over from unkeyed links', () => {
    it('holds unkeyed events followed by the keyed carry-over event, and keyed ones after it', () => {
      expect(firstBrokenLink(extend(carryOver(unkeyedChain(4)), 2), keyring)).toBeUndefined();
    });

    it('refuses unkeyed events that no keyed event carries over', () => {
      expect(firstBrokenLink(unkeyedChain(3), keyring)).toEqual({
        seq: 1,
        reason: 'its link is not keyed, and no keyed event carries it over',
      });
    });

    it('refuses an unkeyed event rewritten, even with every unkeyed link recomputed', () => {
      const events = carryOver(unkeyedChain(4));
      const forged = unkeyedChain(4);
      forged[1].target = 'rewritten';
      for (let i = 1; i < 4; i++) {
        const made = { ...contentOf(forged[i]), prevHash: forged[i - 1].hash };
        forged[i] = { ...made, hash: unkeyedLinkOf(made) };
      }
      events.splice(0, 4, ...forged);
      expect(firstBrokenLink(events, keyring)).toMatchObject({
        seq: 5,
        reason: expect.any(String),
      });
    });

    it('refuses a keyed event that is not the carry-over right after unkeyed ones', () => {
      const events = unkeyedChain(2);
      extend(events, 1);
      expect(firstBrokenLink(events, keyring)?.reason).toBe(
        'it follows unkeyed events that no keyed event carried over',
      );
    });

    it('refuses an unkeyed event after keyed ones, and an unkeyed event claiming a kind', () => {
      const events = extend(carryOver(unkeyedChain(2)), 1);
      const last = events[events.length - 1];
      const made = { ...content(last.seq + 1, last.hash, null) };
      events.push({ ...made, hash: unkeyedLinkOf(made) });
      expect(firstBrokenLink(events, keyring)).toEqual({
        seq: 5,
        reason: 'its link is not keyed, but the chain was keyed before it',
      });
      const claimed = unkeyedChain(2);
      claimed[0].actorKind = 'root';
      expect(firstBrokenLink(carryOver(claimed), keyring)?.seq).toBe(1);
    });
  });
});
