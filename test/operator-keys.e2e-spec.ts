import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { MIGRATIONS, dataSourceOptions } from '../src/schema/data-source-options.js';
import { hashApiKey } from '../src/access/api-key.js';
import {
  adminHeaders,
  expectEnvelope,
  freshDatabase,
  http,
  startTestApp,
  TestApp,
} from './support/test-app.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SEEDED_KEY = 'acme-seeded-key-0123456789-abcdefghij-WXYZ';

describe('operator: merchants and their keys (e2e)', () => {
  let t: TestApp;
  const admin = (path: string, method = 'GET') =>
    http(t.url + path, { method, headers: adminHeaders });

  beforeAll(async () => {
    t = await startTestApp();
    await t.seed({
      merchants: [
        { id: 'globex', name: 'Globex' },
        { id: 'acme', name: 'Acme', apiKeys: [SEEDED_KEY] },
        { id: 'Initech', name: 'Initech' },
      ],
    });
  });
  afterAll(() => t.close());

  describe('GET /admin/merchants', () => {
    it('lists every merchant ordered by id, with the page and the total', async () => {
      const r = await admin('/admin/merchants');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        payload: [
          { id: 'Initech', name: 'Initech', createdAt: expect.stringMatching(ISO_TIME) },
          { id: 'acme', name: 'Acme', createdAt: expect.stringMatching(ISO_TIME) },
          { id: 'globex', name: 'Globex', createdAt: expect.stringMatching(ISO_TIME) },
        ],
        page: { size: 10, page: 0, total: 3 },
      });
      const age = Date.now() - Date.parse(r.body.payload[0].createdAt);
      expect(age).toBeGreaterThanOrEqual(-5_000);
      expect(age).toBeLessThan(120_000);
    });

    it('pages like the catalog; a page past the end is empty with the true total', async () => {
      const second = await admin('/admin/merchants?size=2&page=1');
      expect(second.body).toEqual({
        payload: [expect.objectContaining({ id: 'globex' })],
        page: { size: 2, page: 1, total: 3 },
      });
      const past = await admin('/admin/merchants?size=100&page=1000000');
      expect(past.body).toEqual({ payload: [], page: { size: 100, page: 1000000, total: 3 } });
    });

    it.each([
      ['size=0', 'size'],
      ['size=101', 'size'],
      ['page=-1', 'page'],
      ['page=1000001', 'page'],
      ['page=1&page=2', 'page'],
    ])('refuses %s with a 400 naming the field', async (query, field) => {
      const r = await admin(`/admin/merchants?${query}`);
      expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
        expect.objectContaining({ type: 'VALIDATION', field }),
      ]);
    });

    it('shows a merchant created through the API at once', async () => {
      const created = await http(t.url + '/admin/merchants', {
        method: 'POST',
        headers: adminHeaders,
        body: { id: 'hooli', name: 'Hooli' },
      });
      expect(created.status).toBe(201);
      const r = await admin('/admin/merchants?size=100');
      expect(r.body.payload.map((m: { id: string }) => m.id)).toEqual([
        'Initech',
        'acme',
        'globex',
        'hooli',
      ]);
    });
  });

  describe('GET /admin/merchants/{id}/api-keys', () => {
    it('lists each key with last4 and revokedAt; never the key or its hash', async () => {
      const created = await http(t.url + '/admin/merchants/acme/api-keys', {
        method: 'POST',
        headers: adminHeaders,
      });
      expect(created.status).toBe(201);
      const { keyId, apiKey } = created.body as { keyId: string; apiKey: string };

      const before = await admin('/admin/merchants/acme/api-keys');
      expect(before.status).toBe(200);
      expect(before.body.merchantId).toBe('acme');
      expect(before.body.page).toEqual({ size: 10, page: 0, total: 2 });
      const seeded = before.body.payload.find((k: { keyId: string }) => k.keyId !== keyId);
      expect(seeded).toEqual({
        keyId: expect.any(String),
        createdAt: expect.stringMatching(ISO_TIME),
        last4: 'WXYZ',
      });
      expect(before.body.payload).toContainEqual({
        keyId,
        createdAt: expect.stringMatching(ISO_TIME),
        last4: apiKey.slice(-4),
      });

      const revoked = await admin(`/admin/merchants/acme/api-keys/${keyId}`, 'DELETE');
      expect(revoked.status).toBe(204);
      const after = await admin('/admin/merchants/acme/api-keys');
      const entry = after.body.payload.find((k: { keyId: string }) => k.keyId === keyId);
      expect(entry).toEqual({
        keyId,
        createdAt: expect.stringMatching(ISO_TIME),
        revokedAt: expect.stringMatching(ISO_TIME),
        last4: apiKey.slice(-4),
      });
      expect(Date.parse(entry.revokedAt)).toBeGreaterThanOrEqual(Date.parse(entry.createdAt));
      expect(after.body.payload).toContainEqual(seeded);

      for (const text of [before.text, after.text]) {
        for (const secret of [apiKey, SEEDED_KEY, hashApiKey(apiKey), hashApiKey(SEEDED_KEY)]) {
          expect(text).not.toContain(secret);
        }
      }
    });

    it('lists no keys of another merchant', async () => {
      const r = await admin('/admin/merchants/globex/api-keys');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        merchantId: 'globex',
        payload: [],
        page: { size: 10, page: 0, total: 0 },
      });
    });

    it('pages the keys', async () => {
      const all = await admin('/admin/merchants/acme/api-keys');
      const second = await admin('/admin/merchants/acme/api-keys?size=1&page=1');
      expect(second.body.page).toEqual({ size: 1, page: 1, total: all.body.page.total });
      expect(second.body.payload).toEqual([all.body.payload[1]]);
    });

    it('answers an unknown merchant with 404 NOT_FOUND', async () => {
      const r = await admin('/admin/merchants/nobody/api-keys');
      expectEnvelope(r, 404, 'NOT_FOUND');
    });

    it.each([
      ['/admin/merchants/-bad-/api-keys', 'id'],
      ['/admin/merchants/acme/api-keys?size=0', 'size'],
    ])('refuses %s with a 400 naming %s', async (path, field) => {
      const r = await admin(path);
      expect(expectEnvelope(r, 400, 'INVALID_PARAMETER')).toEqual([
        expect.objectContaining({ field }),
      ]);
    });

    it.each(['/admin/merchants', '/admin/merchants/acme/api-keys'])(
      'refuses %s without the operator token and with a wrong one (401)',
      async (path) => {
        expectEnvelope(await http(t.url + path), 401, 'UNAUTHORIZED');
        const wrong = await http(t.url + path, {
          headers: { authorization: 'Bearer wrong-token-0123456789-0123456789-abc' },
        });
        expectEnvelope(wrong, 401, 'UNAUTHORIZED');
        expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      },
    );
  });
});

describe('keys stored before the last 4 characters were kept (e2e)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-last4-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keep working after the migration and are listed without last4', async () => {
    const database = await freshDatabase(dir);
    const url = database.url;
    const plaintext = 'old-key-from-before-the-migration-0123456789';
    const last4Migration = MIGRATIONS.findIndex((m) => m.name.startsWith('ApiKeyLast4'));
    expect(last4Migration).toBeGreaterThan(0);
    // The database as the previous release left it: migrated up to before the column.
    const old = new DataSource({
      ...dataSourceOptions(url),
      migrations: MIGRATIONS.slice(0, last4Migration),
    });
    await old.initialize();
    await old.runMigrations();
    // Written as the previous release wrote it: without the column that came later.
    const parameter = old.options.type === 'postgres' ? '$1' : '?';
    await old.query("INSERT INTO merchant (id, name) VALUES ('acme', 'Acme')");
    await old.query(
      `INSERT INTO api_key (id, merchant_id, key_hash) VALUES ('0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d', 'acme', ${parameter})`,
      [hashApiKey(plaintext)],
    );
    await old.destroy();

    const t = await startTestApp({ DATABASE_URL: url, AUTH_MODE: 'api-key' });
    try {
      const keys = await http(t.url + '/admin/merchants/acme/api-keys', { headers: adminHeaders });
      expect(keys.status).toBe(200);
      expect(keys.body.payload).toEqual([
        {
          keyId: '0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d',
          createdAt: expect.stringMatching(ISO_TIME),
        },
      ]);
      const catalog = await http(t.url + '/api/crypto-currency-protocol-processors', {
        headers: { key: plaintext },
      });
      expect(catalog.status).toBe(200);
    } finally {
      await t.close();
      await database.drop();
    }
  });
});
