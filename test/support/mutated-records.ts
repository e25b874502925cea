/**
 * Records generated from valid ones by dropping fields, replacing them with odd values or adding
 * unknown keys: for the tests that check a shortcut of validation against class-validator itself.
 */

/** A small seeded generator, so a failure names a case that can be replayed. */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values that break one rule or another, or meet it only after a transform. */
const ODD_VALUES: unknown[] = [
  null,
  '',
  ' ',
  ' padded ',
  'abc',
  'ABC',
  'ie',
  'ıt',
  'ſol',
  'usdt',
  'x'.repeat(65),
  'x'.repeat(300),
  0,
  -1,
  1.005,
  150,
  '150.5',
  '1e3',
  true,
  false,
  [],
  ['a'],
  ['k'.repeat(32)],
  [1],
  [{}],
  {},
  { amount: 1, currency: 'eur' },
  { amount: -1, currency: 'EUR' },
  '1990-02-30',
  '1990-04-23',
  'not an email',
  'a@b.io',
  '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
  'https://merchant.example/return',
  'ftp://merchant.example/return',
  'whsec_ZGVtby1jYWxsYmFjay1zZWNyZXQtc2FuZGJveC0zMmI=',
  'PENDING',
  'SUCCESSFUL',
  'FAILED',
  'vk_1',
  'vk/1',
  '5',
  '0',
  '-3',
  '2026-11-01T00:00:00Z',
];

const EXTRA_KEYS = ['__proto__', 'constructor', 'toString', 'unknown', 'hasOwnProperty'];

/** A copy of `base` with some fields removed, replaced by odd values, or added. */
export function mutate(base: Record<string, unknown>, next: () => number, depth = 0): unknown {
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)];
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) {
    const roll = next();
    if (roll < 0.06) continue;
    if (roll < 0.14) record[key] = pick(ODD_VALUES);
    else if (roll < 0.3 && depth < 2 && value !== null && typeof value === 'object') {
      record[key] = mutate(value as Record<string, unknown>, next, depth + 1);
    } else record[key] = value;
  }
  if (next() < 0.08) {
    // JSON.parse makes '__proto__' an own property; so does this.
    Object.defineProperty(record, pick(EXTRA_KEYS), {
      value: pick(ODD_VALUES),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return next() < 0.02 ? pick(ODD_VALUES) : record;
}
