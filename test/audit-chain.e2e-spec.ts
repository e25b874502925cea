import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { DataSource } from 'typeorm';
import { REFUSAL_COUNT_LIMITS } from '../src/audit/refusal-counts.js';
import { databaseFileOf } from '../src/database/dialect.js';
import { dataSourceOptions, MIGRATIONS } from '../src/schema/data-source-options.js';
import {
  adminHeaders,
  expectEnvelope,
  freshDatabase,
  http,
  startTestApp,
  TEST_AUDIT_KEY,
  TEST_DIALECT,
  TestApp,
} from './support/test-app.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A tamper script's view of the audit table: rows as stored, and links recomputed the way
 * anyone can read them off docs/operators.md — canonical JSON (sorted keys) of the content, then
 * HMAC-SHA256 under a key (the tester's own: they do not hold the service's), or plain SHA-256.
 */
type Row = Record<string, unknown> & { seq: number; hash: string; prev_hash: string };

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

function contentOf(row: Row) {
  return {
    seq: Number(row.seq),
    at: row.at,
    actorKind: row.actor_kind,
    operatorId: row.operator_id,
    operatorName: row.operator_name,
    action: row.action,
    target: row.target,
    outcome: Number(row.outcome),
    requestId: row.request_id,
    changes: JSON.parse(String(row.changes)),
    reason: row.reason,
    keyId: row.key_id,
    prevHash: row.prev_hash,
  };
}

const hmacLink = (row: Row, key: Buffer) =>
  createHmac('sha256', key)
    .update(canonical(contentOf(row)))
    .digest('hex');
const sha256Link = (row: Row) =>
  createHash('sha256')
    .update(canonical(contentOf(row)))
    .digest('hex');

/** Direct access to the database, as someone who can write to it. */
class Database {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs a statement on a connection of its own, as such a writer would: on SQLite, not on the
   * service's connection, whose open write transaction would take it in and commit it later.
   */
  async query<T = Row>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    const file = databaseFileOf(this.dataSource);
    if (file === undefined) {
      let n = 0;
      const text =
        this.dataSource.options.type === 'postgres' ? sql.replace(/\?/g, () => `$${++n}`) : sql;
      return this.dataSource.query(text, parameters) as Promise<T[]>;
    }
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const opened = new sqlite3.Database(file, (error) =>
        error ? reject(error) : resolve(opened),
      );
    });
    db.configure('busyTimeout', 10_000);
    try {
      return await new Promise<T[]>((resolve, reject) =>
        db.all(sql, parameters, (error: Error | null, rows: T[]) =>
          error ? reject(error) : resolve(rows),
        ),
      );
    } finally {
      await new Promise<void>((resolve) => db.close(() => resolve()));
    }
  }

  rows(): Promise<Row[]> {
    return this.query('SELECT * FROM audit_event ORDER BY seq');
  }

  /** Writes the rows back in place of the whole table (what a rewrite comes to). */
  async replace(rows: Row[]): Promise<void> {
    await this.query('DELETE FROM audit_event');
    for (const row of rows) {
      const columns = Object.keys(row);
      await this.query(
        `INSERT INTO audit_event (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        columns.map((c) => row[c]),
      );
    }
  }
}

/** Recomputes every link from `from` (an index) on, with `link`, as a rewrite must. */
function relink(rows: Row[], from: number, link: (row: Row) => string): Row[] {
  for (let i = from; i < rows.length; i++) {
    rows[i].prev_hash = i === 0 ? '0'.repeat(64) : rows[i - 1].hash;
    rows[i].hash = link(rows[i]);
  }
  return rows;
}

async function verify(t: TestApp, query = '') {
  const r = await http(`${t.url}/admin/audit-events/verify${query}`, { headers: adminHeaders });
  expect(r.status).toBe(200);
  return r.body as {
    valid: boolean;
    events: number;
    headHash?: string;
    brokenAt?: { id: number; reason: string };
  };
}

async function head(t: TestApp) {
  const r = await http(`${t.url}/admin/audit-events/head`, { headers: adminHeaders });
  expect(r.status).toBe(200);
  return r.body as { events: number; headHash: string; at: string | null };
}

/** A few changes and refusals: events of every kind of actor. */
async function someEvents(t: TestApp, prefix: string, count = 4) {
  const op = await http(`${t.url}/admin/operators`, {
    method: 'POST',
    headers: adminHeaders,
    body: { name: `${prefix}-op`, role: 'catalog' },
  });
  expect(op.status).toBe(201);
  for (let i = 0; i < count; i++) {
    const r = await http(`${t.url}/admin/crypto-pairs`, {
      method: 'POST',
      headers: bearer(op.body.token),
      body: {
        currencyCode: `${prefix}${i}`.slice(0, 16),
        currencyName: 'Coin',
        protocol: 'P',
        countryCode: 'IE',
      },
    });
    expect(r.status).toBe(201);
  }
  await http(`${t.url}/admin/merchants`, { headers: bearer(`op_${'q'.repeat(43)}`) });
}

/** The key the service holds, as its operator would find it (never the tester's). */
function serviceKey(t: TestApp): Buffer {
  if (TEST_DIALECT === 'postgres') return Buffer.from(TEST_AUDIT_KEY, 'base64');
  return Buffer.from(readFileSync(join(t.dir, 'audit.key'), 'utf8').trim(), 'base64');
}

describe('the keyed audit chain against someone who can write to the database (e2e)', () => {
  let t: TestApp;
  let db: Database;
  let original: Row[];

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    db = new Database(t.app.get(DataSource));
    await someEvents(t, 'TMP', 6);
    original = await db.rows();
    expect(original.length).toBeGreaterThanOrEqual(8);
  });
  afterEach(() => db.replace(original.map((row) => ({ ...row }))));
  afterAll(() => t.close());

  it('verifies the untouched chain, every link an HMAC the tester cannot make', async () => {
    expect(await verify(t)).toEqual({
      valid: true,
      events: original.length,
      headHash: original[original.length - 1].hash,
    });
    const rows = original.map((row) => ({ ...row }));
    // Not SHA-256 of the content, nor an HMAC under a key of the tester's.
    expect(rows.some((row) => row.hash === sha256Link(row))).toBe(false);
    expect(rows.some((row) => row.hash === hmacLink(row, randomBytes(32)))).toBe(false);
    expect(rows.every((row) => row.hash === hmacLink(row, serviceKey(t)))).toBe(true);
  });

  it("recomputes every link from the API's events with the key, as docs/operators.md says", async () => {
    const listed = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
    expect(listed.status).toBe(200);
    const events = [...listed.body.payload].reverse();
    expect(events.length).toBe(original.length);
    let previous = '0'.repeat(64);
    for (const event of events) {
      // The content as stored: the API's `id` and `operator` under their stored names, `reason`
      // null when the event has none.
      const content = {
        seq: event.id,
        at: event.at,
        actorKind: event.operator.kind,
        operatorId: event.operator.id,
        operatorName: event.operator.name,
        action: event.action,
        target: event.target,
        outcome: event.outcome,
        requestId: event.requestId,
        changes: event.changes,
        reason: event.reason ?? null,
        keyId: event.keyId,
        prevHash: event.prevHash,
      };
      expect(event.prevHash).toBe(previous);
      const link = createHmac('sha256', serviceKey(t)).update(canonical(content)).digest('hex');
      expect(link).toBe(event.hash);
      previous = event.hash;
    }
  });

  it.each([
    [
      'alter a target, and re-link the rest with a key of the tester',
      (rows: Row[]) => {
        rows[3].target = 'someone-else';
        return relink(rows, 3, (row) => hmacLink(row, randomBytes(32)));
      },
      () => 4,
    ],
    [
      'alter an outcome, and re-link the rest with plain SHA-256 as unkeyed links',
      (rows: Row[]) => {
        rows[2].outcome = 200;
        for (const row of rows.slice(2)) row.key_id = null;
        return relink(rows, 2, sha256Link);
      },
      () => 3,
    ],
    [
      'delete an event and renumber the rest, re-linked',
      (rows: Row[]) => {
        rows.splice(2, 1);
        rows.slice(2).forEach((row, i) => (row.seq = i + 3));
        return relink(rows, 2, (row) => hmacLink(row, randomBytes(32)));
      },
      () => 3,
    ],
    [
      'append a revocation that never happened',
      (rows: Row[]) => {
        const last = rows[rows.length - 1];
        rows.push({
          ...last,
          seq: Number(last.seq) + 1,
          action: 'revokeOperator',
          outcome: 204,
          changes: '{"revokedAt":{"old":null,"new":"2026-11-24T21:40:03.511Z"}}',
        });
        return relink(rows, rows.length - 1, (row) => hmacLink(row, randomBytes(32)));
      },
      (n: number) => n + 1,
    ],
    [
      're-hash the whole chain with a key of the tester, key ids kept',
      (rows: Row[]) => relink(rows, 0, (row) => hmacLink(row, randomBytes(32))),
      () => 1,
    ],
    [
      're-hash the whole chain as unkeyed SHA-256 links',
      (rows: Row[]) => {
        for (const row of rows) {
          row.key_id = null;
          row.reason = null;
        }
        return relink(rows, 0, (row) =>
          createHash('sha256')
            .update(canonical(contentWithoutKeys(row)))
            .digest('hex'),
        );
      },
      () => 1,
    ],
    [
      'claim the newest event was made by another key',
      (rows: Row[]) => {
        rows[rows.length - 1].key_id = 'ffffffffffffffff';
        return rows;
      },
      (n: number) => n,
    ],
  ] as [string, (rows: Row[]) => Row[], (events: number) => number][])(
    'refuses a chain where someone without the key tried to %s',
    async (_what, tamper, brokenAt) => {
      await db.replace(tamper(original.map((row) => ({ ...row }))));
      const result = await verify(t);
      expect(result).toMatchObject({ valid: false, brokenAt: { id: brokenAt(original.length) } });
      expect(result.headHash).toBeUndefined();
    },
  );

  it('refuses a chain where someone without the key deleted an event and left the rest', async () => {
    await db.query('DELETE FROM audit_event WHERE seq = ?', [5]);
    expect(await verify(t)).toMatchObject({ valid: false, events: 4, brokenAt: { id: 6 } });
  });

  it('does not notice the newest events removed (nothing can), but a kept head does', async () => {
    const kept = await head(t);
    expect(kept).toEqual({
      events: original.length,
      headHash: original[original.length - 1].hash,
      at: original[original.length - 1].at,
    });
    await db.query('DELETE FROM audit_event WHERE seq > ?', [original.length - 2]);
    expect(await verify(t)).toMatchObject({ valid: true, events: original.length - 2 });
    const checked = await verify(t, `?head=${kept.headHash}&events=${kept.events}`);
    expect(checked).toMatchObject({ valid: false, brokenAt: { id: kept.events } });
    expect(checked.brokenAt!.reason).toContain('removed from its end');
  });

  it('finds a rewrite made with the key itself before a kept head; an older head still holds', async () => {
    const older = { events: 3, headHash: original[2].hash };
    const kept = await head(t);
    const key = serviceKey(t);
    const rows = original.map((row) => ({ ...row }));
    rows[4].target = 'rewritten-by-an-insider';
    await db.replace(relink(rows, 4, (row) => hmacLink(row, key)));
    // With the key, the chain itself holds again: only a head kept outside tells.
    expect(await verify(t)).toMatchObject({ valid: true, events: original.length });
    const checked = await verify(t, `?head=${kept.headHash}&events=${kept.events}`);
    expect(checked).toEqual({
      valid: false,
      events: kept.events - 1,
      brokenAt: {
        id: kept.events,
        reason: 'its link is not the kept head: the chain was rewritten at or before this event',
      },
    });
    expect(await verify(t, `?head=${older.headHash}&events=${older.events}`)).toMatchObject({
      valid: true,
    });
  });

  it('holds a kept head while the chain only grows, and refuses a made-up one', async () => {
    const kept = await head(t);
    await someEvents(t, 'GRW', 2);
    const later = await verify(t, `?head=${kept.headHash}&events=${kept.events}`);
    expect(later).toMatchObject({ valid: true });
    expect(later.events).toBeGreaterThan(kept.events);
    const madeUp = await verify(t, `?head=${'ab'.repeat(32)}&events=2`);
    expect(madeUp).toMatchObject({ valid: false, brokenAt: { id: 2 } });
    const shifted = await verify(t, `?head=${kept.headHash}&events=${kept.events - 1}`);
    expect(shifted).toMatchObject({ valid: false, brokenAt: { id: kept.events - 1 } });
    const uppercase = await verify(t, `?head=${kept.headHash.toUpperCase()}&events=${kept.events}`);
    expect(uppercase.valid).toBe(true);
    const empty = await verify(t, `?head=${'0'.repeat(64)}&events=0`);
    expect(empty.valid).toBe(true);
    original = await db.rows();
  });

  it.each([
    ['head without events', `head=${'a'.repeat(64)}`, 'events'],
    ['events without head', 'events=3', 'head'],
    ['a head that is not 64 hex digits', `head=${'a'.repeat(63)}&events=3`, 'head'],
    ['events that are not a count', `head=${'a'.repeat(64)}&events=-1`, 'events'],
    ['a head given twice', `head=${'a'.repeat(64)}&head=${'b'.repeat(64)}&events=1`, 'head'],
  ])('refuses %s (400)', async (_what, query, field) => {
    const r = await http(`${t.url}/admin/audit-events/verify?${query}`, { headers: adminHeaders });
    const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(error.field).toBe(field);
  });
});

/** The content as an unkeyed link covered it: without kind, reason and key id. */
function contentWithoutKeys(row: Row) {
  const content: Record<string, unknown> = contentOf(row);
  for (const field of ['actorKind', 'reason', 'keyId']) delete content[field];
  return content;
}

describe('the chain under concurrent writes, some of them refused (e2e)', () => {
  let t: TestApp;
  let db: Database;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    db = new Database(t.app.get(DataSource));
  });
  afterAll(() => t.close());

  const put = (key: string, body: Record<string, unknown>) =>
    http(`${t.url}/admin/payment-sessions/${key}`, { method: 'PUT', headers: adminHeaders, body });

  it('verifies after reports that append arrive together with reports refused inside their transaction', async () => {
    const merchant = await http(`${t.url}/admin/merchants`, {
      method: 'POST',
      headers: adminHeaders,
      body: { id: 'chain-merchant', name: 'Chain' },
    });
    expect(merchant.status).toBe(201);
    const failed = { merchantId: 'chain-merchant', status: 'FAILED', errorMessage: 'Declined' };
    expect((await put('chain-final', failed)).status).toBe(201);
    const before = (await db.rows()).length;
    // On SQLite these run in groups of one transaction: appends (201), reports refused after
    // reading the session or the merchant (409, 400), and refused callers (401, appended in
    // transactions of their own), interleaved.
    const requests = Array.from({ length: 60 }, (_, i) => {
      switch (i % 4) {
        case 0:
        case 1:
          return put(`chain-new-${i}`, failed);
        case 2:
          return i % 8 === 2
            ? put('chain-final', { ...failed, errorMessage: 'Declined again' })
            : put(`chain-unknown-${i}`, { ...failed, merchantId: 'no-such-merchant' });
        default:
          return http(`${t.url}/admin/merchants`, { headers: bearer(`op_${'q'.repeat(43)}`) });
      }
    });
    const statuses = (await Promise.all(requests)).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(30);
    expect(statuses.filter((s) => s === 409)).toHaveLength(8);
    expect(statuses.filter((s) => s === 400)).toHaveLength(7);
    expect(statuses.filter((s) => s === 401)).toHaveLength(15);
    const rows = await db.rows();
    // One event per session created and per refused caller, up to the caller's first refusals
    // of the minute (the rest are counted: one more event when the minute ends, at most two
    // minutes' worth should the requests cross one); none for the reports refused.
    const refusedOneByOne = rows.length - before - 30;
    expect(refusedOneByOne).toBeGreaterThanOrEqual(Math.min(15, REFUSAL_COUNT_LIMITS.perAddress));
    expect(refusedOneByOne).toBeLessThanOrEqual(15 + 1);
    expect(rows.map((row) => Number(row.seq))).toEqual(rows.map((_, i) => i + 1));
    expect(await verify(t)).toEqual({
      valid: true,
      events: rows.length,
      headHash: rows[rows.length - 1].hash,
    });
  });
});

describe('audit keys rotated (e2e)', () => {
  let dir: string;
  let database: { url: string; drop(): Promise<void> };
  const [first, second, third] = [1, 2, 3].map(() => randomBytes(32).toString('base64'));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-audit-keys-'));
    database = await freshDatabase(dir);
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (env: Record<string, string>) =>
    startTestApp({ DATABASE_URL: database.url, ...env });

  it('keeps events of a previous key verifiable, and names a key the service no longer holds', async () => {
    const a = await start({ AUDIT_KEY: first });
    await someEvents(a, 'KA', 2);
    const keptA = await head(a);
    await a.close();

    const b = await start({ AUDIT_KEY: second, AUDIT_KEYS_PREVIOUS: first });
    try {
      await someEvents(b, 'KB', 2);
      const all = await http(`${b.url}/admin/audit-events?size=100`, { headers: adminHeaders });
      const keyIds = [...new Set(all.body.payload.map((e: { keyId: string }) => e.keyId))];
      expect(keyIds).toHaveLength(2);
      expect(keyIds.every((id) => /^[0-9a-f]{16}$/.test(String(id)))).toBe(true);
      expect(await verify(b)).toMatchObject({ valid: true, events: all.body.page.total });
      expect(await verify(b, `?head=${keptA.headHash}&events=${keptA.events}`)).toMatchObject({
        valid: true,
      });
    } finally {
      await b.close();
    }

    const c = await start({ AUDIT_KEY: third, AUDIT_KEYS_PREVIOUS: second });
    try {
      const result = await verify(c);
      expect(result).toMatchObject({ valid: false, events: 0, brokenAt: { id: 1 } });
      expect(result.brokenAt!.reason).toMatch(
        /^its link was made with the audit key [0-9a-f]{16}, which this service does not hold$/,
      );
    } finally {
      await c.close();
    }
  });
});

describe('an unkeyed chain and operator names carried over by the migrations (e2e)', () => {
  let dir: string;
  let database: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-audit-carry-'));
    database = await freshDatabase(dir);
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keys the chain from its head, in an event, and renames borrowed or doubled names', async () => {
    const keyed = MIGRATIONS.findIndex((m) => m.name.startsWith('KeyedAuditChain'));
    expect(keyed).toBeGreaterThan(0);
    // The database as the previous release left it, with what it wrote.
    const old = new DataSource({
      ...dataSourceOptions(database.url),
      migrations: MIGRATIONS.slice(0, keyed),
    });
    await old.initialize();
    await old.runMigrations();
    const db = new Database(old);
    const operators = [
      ['00000000-0000-4000-8000-000000000001', 'alice', '2026-01-01 10:00:00', null],
      ['00000000-0000-4000-8000-000000000002', 'Root', '2026-01-01 10:00:01', null],
      ['00000000-0000-4000-8000-000000000003', 'ALICE', '2026-01-01 10:00:02', null],
      [
        '00000000-0000-4000-8000-000000000004',
        'bob',
        '2026-01-01 10:00:03',
        '2026-01-02T00:00:00.000Z',
      ],
      ['00000000-0000-4000-8000-000000000005', 'BOB', '2026-01-01 10:00:04', null],
    ];
    for (const [id, name, createdAt, revokedAt] of operators) {
      await db.query(
        "INSERT INTO operator (id, name, role, token_hash, created_at, revoked_at) VALUES (?, ?, 'viewer', ?, ?, ?)",
        [id, name, createHash('sha256').update(String(id)).digest('hex'), createdAt, revokedAt],
      );
    }
    // Events as that release linked them: SHA-256, content without kind, reason or key id.
    let prev = '0'.repeat(64);
    for (let seq = 1; seq <= 3; seq++) {
      const content = {
        seq,
        at: `2026-01-01T10:00:0${seq}.000Z`,
        operatorId: seq === 3 ? null : 'root',
        operatorName: seq === 3 ? 'unknown' : 'root',
        action: seq === 3 ? 'listMerchants' : 'createMerchant',
        target: seq === 3 ? null : `m${seq}`,
        outcome: seq === 3 ? 403 : 201,
        requestId: `r${seq}`,
        changes: seq === 3 ? {} : { name: { old: null, new: `M${seq}` } },
        prevHash: prev,
      };
      const hash = createHash('sha256').update(canonical(content)).digest('hex');
      await db.query(
        'INSERT INTO audit_event (seq, at, operator_id, operator_name, action, target, outcome, request_id, changes, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          seq,
          content.at,
          content.operatorId,
          content.operatorName,
          content.action,
          content.target,
          content.outcome,
          content.requestId,
          JSON.stringify(content.changes),
          prev,
          hash,
        ],
      );
      prev = hash;
    }
    await old.destroy();

    const t = await startTestApp({ DATABASE_URL: database.url });
    try {
      const events = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
      const listed = [...events.body.payload].reverse();
      expect(
        listed
          .slice(0, 4)
          .map((e: Record<string, unknown>) => [e.id, e.operator, e.action, e.keyId]),
      ).toEqual([
        [1, { kind: 'root', id: 'root', name: 'root' }, 'createMerchant', null],
        [2, { kind: 'root', id: 'root', name: 'root' }, 'createMerchant', null],
        [3, { kind: 'unknown', id: null, name: 'unknown' }, 'listMerchants', null],
        [
          4,
          { kind: 'system', id: 'system', name: 'system' },
          'keyAuditChain',
          expect.stringMatching(/^[0-9a-f]{16}$/),
        ],
      ]);
      expect(listed[3]).toMatchObject({
        prevHash: prev,
        changes: { link: { old: 'SHA-256', new: 'HMAC-SHA256' } },
      });
      expect(
        listed.slice(4).map((e: Record<string, unknown>) => [e.action, e.target, e.changes]),
      ).toEqual([
        [
          'renameOperator',
          '00000000-0000-4000-8000-000000000002',
          { name: { old: 'Root', new: 'Root-00000000' } },
        ],
        [
          'renameOperator',
          '00000000-0000-4000-8000-000000000003',
          { name: { old: 'ALICE', new: 'ALICE-00000000' } },
        ],
      ]);
      expect(await verify(t)).toMatchObject({ valid: true, events: 6 });
      const names = await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders });
      expect(names.body.payload.map((o: { name: string }) => o.name)).toEqual([
        'alice',
        'Root-00000000',
        'ALICE-00000000',
        'bob',
        'BOB',
      ]);
      // The unkeyed part cannot be rewritten now: its head is inside a keyed link.
      const db2 = new Database(t.app.get(DataSource));
      await db2.query("UPDATE audit_event SET target = 'm9' WHERE seq = 1");
      const rows = await db2.rows();
      relink(rows.slice(0, 3), 0, (row) =>
        createHash('sha256')
          .update(canonical(contentWithoutKeys(row)))
          .digest('hex'),
      );
      rows[3].prev_hash = rows[2].hash;
      await db2.replace(rows);
      expect(await verify(t)).toMatchObject({ valid: false, brokenAt: { id: 4 } });
    } finally {
      await t.close();
    }
  });
});

describe('operator names and the actor of every event (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
  });
  afterAll(() => t.close());

  const create = (name: string, role = 'viewer') =>
    http(`${t.url}/admin/operators`, {
      method: 'POST',
      headers: adminHeaders,
      body: { name, role },
    });

  it.each(['root', 'system', 'unknown', 'ROOT', 'System', 'uNkNoWn', ' root '])(
    'refuses the reserved name %j (400)',
    async (name) => {
      const [error] = expectEnvelope(await create(name), 400, 'INVALID_PARAMETER');
      expect(error).toMatchObject({
        field: 'name',
        message: expect.stringContaining('root, system, unknown'),
      });
    },
  );

  it('accepts names that only start like a reserved one', async () => {
    for (const name of ['rooted', 'system-bot', 'unknown2'])
      expect((await create(name)).status).toBe(201);
  });

  it('refuses a working operator of the same name in another case (409), not a revoked one', async () => {
    const first = await create('Op-Admin', 'admin');
    expect(first.status).toBe(201);
    const again = await create('OP-ADMIN', 'admin');
    const [error] = expectEnvelope(again, 409, 'CONFLICT');
    expect(error.message).toContain('Op-Admin');
    await http(`${t.url}/admin/operators/${first.body.id}`, {
      method: 'DELETE',
      headers: adminHeaders,
    });
    expect((await create('op-admin')).status).toBe(201);
  });

  it('creates at most one of two names racing in different cases', async () => {
    const answers = await Promise.all(
      ['racer', 'RACER', 'Racer', 'rAcEr'].map((name) => create(name)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('lists operators oldest first, in the order they were created, even within one second', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `order-${String(i).padStart(2, '0')}`);
    for (const name of names.slice().reverse()) expect((await create(name)).status).toBe(201);
    for (let round = 0; round < 3; round++) {
      const listed = await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders });
      const order = listed.body.payload
        .map((o: { name: string }) => o.name)
        .filter((n: string) => n.startsWith('order-'));
      expect(order).toEqual(names.slice().reverse());
    }
  });

  it('gives every event its actor: kind and id; ?operator=root finds only the break-glass token', async () => {
    const events = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
    for (const event of events.body.payload) {
      expect(['root', 'system', 'operator', 'unknown']).toContain(event.operator.kind);
      expect(event.operator).toHaveProperty('id');
    }
    const root = await http(`${t.url}/admin/audit-events?operator=root&size=100`, {
      headers: adminHeaders,
    });
    expect(root.body.payload.length).toBeGreaterThan(0);
    expect(
      root.body.payload.every(
        (e: { operator: object }) =>
          JSON.stringify(e.operator) === JSON.stringify({ kind: 'root', id: 'root', name: 'root' }),
      ),
    ).toBe(true);
  });
});

describe('the head of the chain, kept outside the database (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' }, { captureLogs: true });
  });
  afterAll(() => t.close());

  const headLines = () =>
    t.logs.map((line) => JSON.parse(line)).filter((line) => line.auditHead !== undefined);

  it('answers the head, and writes it to the log and /metrics when it changes, at most once a second', async () => {
    const empty = await head(t);
    expect(empty).toEqual({ events: 0, headHash: '0'.repeat(64), at: null });
    const started = Date.now();
    await someEvents(t, 'HD', 8);
    const now = await head(t);
    expect(now.events).toBe(10);
    expect(now.headHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(now.at!)).toBeGreaterThanOrEqual(started - 1000);

    // The deadline only ends a run where the head is never published; its spacing is checked below.
    const deadline = Date.now() + 20_000;
    while (headLines().at(-1)?.auditHead.events !== now.events && Date.now() < deadline)
      await sleep(100);
    const lines = headLines();
    expect(lines.at(-1)).toMatchObject({
      msg: `Audit chain head: ${now.events} events, last link ${now.headHash}`,
      auditHead: now,
    });
    // At most once a second: the lines of one instance are a second apart or more.
    for (let i = 1; i < lines.length; i++) {
      expect(lines[i].time - lines[i - 1].time).toBeGreaterThanOrEqual(990);
    }
    const metrics = await http(`${t.url}/metrics`, { headers: adminHeaders });
    const series = metrics.text.split('\n').filter((line) => line.startsWith('audit_chain_head{'));
    expect(series).toEqual([`audit_chain_head{hash="${now.headHash}"} ${now.events}`]);
  }, 60_000);

  it('is read by any operator, the viewer included, like /metrics', async () => {
    const viewer = await http(`${t.url}/admin/operators`, {
      method: 'POST',
      headers: adminHeaders,
      body: { name: 'head-keeper', role: 'viewer' },
    });
    const r = await http(`${t.url}/admin/audit-events/head`, {
      headers: bearer(viewer.body.token),
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['at', 'events', 'headHash']);
    expectEnvelope(await http(`${t.url}/admin/audit-events/head`), 401, 'UNAUTHORIZED');
  });
});

/** The schema's guard of the chain's numbering, as someone with the database's owner drops it. */
const DROP_SEQUENCE_GUARD =
  TEST_DIALECT === 'postgres'
    ? [
        'ALTER TABLE audit_event DROP CONSTRAINT ck_audit_event_seq',
        'DROP TRIGGER tr_audit_event_sequence ON audit_event',
      ]
    : ['DROP TRIGGER tr_audit_event_sequence'];

/** A copy of a stored row numbered `seq`: a planted event that looks like the others. */
const planted = (row: Row, seq: number): Row => ({
  ...row,
  seq,
  action: 'revokeOperator',
  target: 'planted',
});

describe('the numbering of the chain, kept by the schema (e2e)', () => {
  let t: TestApp;
  let db: Database;
  let rows: Row[];
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    db = new Database(t.app.get(DataSource));
    await someEvents(t, 'SEQ', 3);
    rows = await db.rows();
  });
  afterAll(() => t.close());

  it.each([
    ['0', () => 0],
    ['-7', () => -7],
    ['the lowest integer', () => -2147483648],
    ['two past the head (a gap)', (head: number) => head + 2],
    ['far past the head', () => 2147483647],
  ])('refuses a row numbered %s; the trail lists and verifies as before', async (_what, seq) => {
    const row = planted(rows[rows.length - 1], seq(rows.length));
    const columns = Object.keys(row);
    await expect(
      db.query(
        `INSERT INTO audit_event (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        columns.map((c) => row[c]),
      ),
    ).rejects.toThrow(/next number of the chain/);
    const listed = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
    expect(listed.body.page.total).toBe(rows.length);
    expect(await verify(t)).toMatchObject({ valid: true, events: rows.length });
  });

  it('refuses to renumber an event', async () => {
    await expect(db.query('UPDATE audit_event SET seq = ? WHERE seq = ?', [0, 1])).rejects.toThrow(
      /never changes/,
    );
    await expect(db.query('UPDATE audit_event SET seq = seq + 100')).rejects.toThrow(
      /never changes/,
    );
    expect((await db.rows()).map((row) => Number(row.seq))).toEqual(rows.map((_, i) => i + 1));
  });
});

describe('every listed event is a verified one, with the schema guard dropped (e2e)', () => {
  let t: TestApp;
  let db: Database;
  let rows: Row[];
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    db = new Database(t.app.get(DataSource));
    await someEvents(t, 'OUT', 3);
    rows = await db.rows();
    for (const statement of DROP_SEQUENCE_GUARD) await db.query(statement);
  });
  afterEach(() => db.query('DELETE FROM audit_event WHERE seq < 1 OR seq > ?', [rows.length]));
  afterAll(() => t.close());

  it.each([
    ['0, a copy of the head', () => 0, () => undefined],
    ['-7, a copy of the head', () => -7, () => undefined],
    ['the lowest integer', () => -2147483648, () => undefined],
    ['past the head, after a gap', (head: number) => head + 3, (head: number) => head + 3],
  ])(
    'answers valid:false naming a row numbered %s, with and without a kept head',
    async (_what, seq, named) => {
      const kept = await head(t);
      const row = planted(rows[rows.length - 1], seq(rows.length));
      await db.replace([...rows, row]);
      const listed = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
      expect(listed.status).toBe(200);
      expect(listed.body.page.total).toBe(rows.length + 1);
      expect(listed.body.payload.map((e: { id: number }) => e.id)).toContain(row.seq);
      const id = named(rows.length) ?? row.seq;
      for (const query of ['', `?head=${kept.headHash}&events=${kept.events}`]) {
        const result = await verify(t, query);
        expect(result).toMatchObject({ valid: false, brokenAt: { id } });
        expect(result.headHash).toBeUndefined();
      }
    },
  );

  it('answers valid:true again once the planted rows are gone', async () => {
    expect(await verify(t)).toMatchObject({ valid: true, events: rows.length });
  });
});

describe('verify and the list on rows that are not what the service writes (e2e)', () => {
  let t: TestApp;
  let db: Database;
  let rows: Row[];
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    db = new Database(t.app.get(DataSource));
    await someEvents(t, 'BAD', 4);
    rows = await db.rows();
  });
  afterEach(() => db.replace(rows.map((row) => ({ ...row }))));
  afterAll(() => t.close());

  const everywhere: [string, unknown][] = [
    ['changes', '{not json'],
    ['changes', ''],
    ['changes', '[]'],
    ['changes', 'null'],
    ['changes', '"text"'],
    ['changes', '12'],
    ['changes', '{"name":{"old":null,"new":"planted"}}'],
    ['at', ''],
    ['at', 'not a time'],
    ['hash', 'not a link'],
    ['hash', 'F'.repeat(64)],
    ['prev_hash', ''],
    ['key_id', 'zz'],
    ['key_id', null],
    ['actor_kind', 'nobody'],
    ['reason', 'because'],
    ['operator_id', 'planted-operator'],
    ['operator_name', ''],
    ['action', 'x\ty'],
    ['outcome', -1],
    ['request_id', null],
  ];
  // SQLite keeps what it is given whatever the column's type; PostgreSQL refuses these.
  const sqliteOnly: [string, unknown][] = [
    ['outcome', 'not a number'],
    ['changes', Buffer.from('{"a":')],
    ['changes', 42],
    ['at', 1_700_000_000_000],
    ['hash', Buffer.alloc(32)],
    ['target', Buffer.from([0xff, 0x00])],
  ];
  const middle = (): number => 3;
  const last = (events: number): number => events;
  const cases: [string, unknown, string, (events: number) => number][] = [
    ...everywhere,
    ...(TEST_DIALECT === 'sqlite' ? sqliteOnly : []),
  ].flatMap(([column, value]) => [
    [column, value, 'a middle event', middle],
    [column, value, 'the head', last],
  ]);

  it.each(cases)(
    'answers valid:false naming the event whose %s holds %p (%s), and lists it',
    async (column, value, _which, which) => {
      const seq = which(rows.length);
      await db.query(`UPDATE audit_event SET ${column} = ? WHERE seq = ?`, [value, seq]);
      const result = await verify(t);
      expect(result).toMatchObject({ valid: false, events: seq - 1, brokenAt: { id: seq } });
      const listed = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
      expect(listed.status).toBe(200);
      expect(listed.body.payload.map((e: { id: number }) => e.id)).toContain(seq);
    },
  );
});
