import {
  AuditContent,
  AuditEvent,
  GENESIS_HASH,
  canonicalJson,
  firstBrokenLink,
  hashOf,
} from './audit-chain.js';

function chain(length: number): AuditEvent[] {
  const events: AuditEvent[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= length; seq++) {
    const content: AuditContent = {
      seq,
      at: `2026-01-01T00:00:0${seq}.000Z`,
      operatorId: 'op-1',
      operatorName: 'alice',
      action: 'updateCryptoPair',
      target: String(seq),
      outcome: 200,
      requestId: `req-${seq}`,
      changes: { enabled: { old: true, new: false } },
      prevHash,
    };
    const hash = hashOf(content);
    events.push({ ...content, hash });
    prevHash = hash;
  }
  return events;
}

describe('the audit chain', () => {
  it('writes the same content as the same bytes, whatever the order of its keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    const [event] = chain(1);
    const { hash, ...content } = event;
    const reordered = Object.fromEntries(
      Object.entries(content).reverse(),
    ) as unknown as AuditContent;
    expect(hashOf(reordered)).toBe(hash);
  });

  it('holds for an untouched chain, and for a run that continues an earlier one', () => {
    const events = chain(5);
    expect(firstBrokenLink(events)).toBeUndefined();
    expect(firstBrokenLink(events.slice(2), events[1])).toBeUndefined();
  });

  it.each([
    ['a changed target', (e: AuditEvent[]) => void (e[2].target = 'other'), 3, 'altered'],
    ['changed changes', (e: AuditEvent[]) => void (e[2].changes = {}), 3, 'altered'],
    ['a changed outcome', (e: AuditEvent[]) => void (e[2].outcome = 403), 3, 'altered'],
    [
      'a changed time',
      (e: AuditEvent[]) => void (e[0].at = '2025-01-01T00:00:00.000Z'),
      1,
      'altered',
    ],
    ['a removed event', (e: AuditEvent[]) => void e.splice(2, 1), 4, 'missing'],
    ['a rewritten hash', (e: AuditEvent[]) => void (e[2].hash = 'f'.repeat(64)), 3, 'altered'],
    ['swapped events', (e: AuditEvent[]) => void ([e[1], e[2]] = [e[2], e[1]]), 3, 'missing'],
  ] as [string, (e: AuditEvent[]) => void, number, string][])(
    'names the first broken link after %s',
    (_label, tamper, seq, reason) => {
      const events = chain(5);
      tamper(events);
      const broken = firstBrokenLink(events);
      expect(broken?.seq).toBe(seq);
      expect(broken?.reason).toContain(reason);
    },
  );

  it('finds an event re-hashed alone: the next one no longer follows it', () => {
    const events = chain(4);
    const altered: AuditContent = { ...events[1], target: 'other' };
    delete (altered as Partial<AuditEvent>).hash;
    events[1] = { ...altered, hash: hashOf(altered) };
    expect(firstBrokenLink(events)).toEqual({
      seq: 3,
      reason: 'its previous hash is not the hash of the event before',
    });
  });
});
