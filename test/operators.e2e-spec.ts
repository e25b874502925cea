import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TOKEN_CACHE_TTL_MS } from '../src/operators/operator-tokens.service.js';
import { OPERATOR_ROLES } from '../src/access/operator-role.js';
import {
  ADMIN_TOKEN,
  adminHeaders,
  createOperator,
  callbacksWhen,
  expectEnvelope,
  http,
  HttpResult,
  startTestApp,
  successfulResponse,
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
  TEST_DIALECT,
  TestApp,
} from './support/test-app.js';
import { PROCESS_TEST_TIMEOUT_MS, runSeed } from './support/main-process.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Every operator route: method, path with real values, and a body where it reads one. */
const OPERATOR_ROUTES: { operationId: string; method: string; path: string; body?: unknown }[] = [
  { operationId: 'listAllCryptoPairs', method: 'GET', path: '/admin/crypto-pairs' },
  {
    operationId: 'createCryptoPair',
    method: 'POST',
    path: '/admin/crypto-pairs',
    body: { currencyCode: 'RLE', currencyName: 'Role', protocol: 'R', countryCode: 'IE' },
  },
  {
    operationId: 'updateCryptoPair',
    method: 'PATCH',
    path: '/admin/crypto-pairs/999',
    body: { enabled: false },
  },
  { operationId: 'deleteCryptoPair', method: 'DELETE', path: '/admin/crypto-pairs/999' },
  {
    operationId: 'reportPaymentSession',
    method: 'PUT',
    path: '/admin/payment-sessions/vk_role_0001',
    body: { merchantId: 'acme', status: 'PENDING' },
  },
  {
    operationId: 'getPaymentSessionHistory',
    method: 'GET',
    path: '/admin/payment-sessions/vk_role_0001/history',
  },
  { operationId: 'listPaymentSessions', method: 'GET', path: '/admin/payment-sessions' },
  {
    operationId: 'getPaymentSession',
    method: 'GET',
    path: '/admin/payment-sessions/vk_role_0001',
  },
  {
    operationId: 'updateMerchant',
    method: 'PATCH',
    path: '/admin/merchants/acme',
    body: { checkoutOrigins: ['https://shop.example'] },
  },
  {
    operationId: 'listPaymentSessionCallbacks',
    method: 'GET',
    path: '/admin/payment-sessions/vk_role_0001/callbacks',
  },
  {
    operationId: 'erasePaymentSessionPersonalData',
    method: 'DELETE',
    path: '/admin/payment-sessions/vk_role_0001/personal-data',
  },
  {
    operationId: 'redeliverCallback',
    method: 'POST',
    path: '/admin/callbacks/00000000-0000-4000-8000-000000000000/redeliver',
  },
  { operationId: 'listMerchants', method: 'GET', path: '/admin/merchants' },
  {
    operationId: 'createMerchant',
    method: 'POST',
    path: '/admin/merchants',
    body: { id: 'role-made', name: 'Made by a role' },
  },
  { operationId: 'listApiKeys', method: 'GET', path: '/admin/merchants/acme/api-keys' },
  { operationId: 'createApiKey', method: 'POST', path: '/admin/merchants/nobody/api-keys' },
  {
    operationId: 'revokeApiKey',
    method: 'DELETE',
    path: '/admin/merchants/acme/api-keys/00000000-0000-4000-8000-000000000000',
  },
  {
    operationId: 'rotateCallbackSecret',
    method: 'POST',
    path: '/admin/merchants/nobody/callback-secret',
  },
  { operationId: 'listOperators', method: 'GET', path: '/admin/operators' },
  {
    operationId: 'createOperator',
    method: 'POST',
    path: '/admin/operators',
    body: { name: '', role: 'viewer' },
  },
  {
    operationId: 'revokeOperator',
    method: 'DELETE',
    path: '/admin/operators/00000000-0000-4000-8000-000000000000',
  },
  { operationId: 'listAuditEvents', method: 'GET', path: '/admin/audit-events' },
  { operationId: 'verifyAuditTrail', method: 'GET', path: '/admin/audit-events/verify' },
  { operationId: 'getAuditHead', method: 'GET', path: '/admin/audit-events/head' },
  { operationId: 'getMetrics', method: 'GET', path: '/metrics' },
  {
    operationId: 'putDepositKey',
    method: 'PUT',
    path: '/admin/merchants/nobody/deposit-keys/evm',
    body: { extendedPublicKey: 'not a key' },
  },
  { operationId: 'listDepositKeys', method: 'GET', path: '/admin/merchants/acme/deposit-keys' },
  {
    operationId: 'deleteDepositKey',
    method: 'DELETE',
    path: '/admin/merchants/nobody/deposit-keys/evm',
  },
  {
    operationId: 'putRate',
    method: 'PUT',
    path: '/admin/rates/USDT',
    body: { fiat: 'EUR', price: '0.92' },
  },
  { operationId: 'listRates', method: 'GET', path: '/admin/rates' },
  {
    operationId: 'listWatchedAddresses',
    method: 'GET',
    path: '/admin/deposit-addresses?network=evm',
  },
  {
    operationId: 'reportDeposit',
    method: 'POST',
    path: '/admin/deposits',
    body: {
      network: 'tron',
      address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      txid: 'a'.repeat(64),
      index: 0,
      asset: 'native',
      amount: '1',
      confirmations: 1,
    },
  },
  { operationId: 'listDeposits', method: 'GET', path: '/admin/deposits?flagged=true' },
];

/** The roles, in the order of the matrix's columns. */
const ROLES = ['viewer', 'payments', 'catalog', 'admin'] as const;
type Role = (typeof ROLES)[number];

/**
 * Which roles may call each operator route, written out by hand from the product's rules
 * (docs/operators.md): the tests below hold the service to it, never to its own role lists.
 * ADMIN_TOKEN (`root`) may call every route.
 */
const MAY_CALL: Record<string, readonly Role[]> = {
  listAllCryptoPairs: ['viewer', 'payments', 'catalog', 'admin'],
  createCryptoPair: ['catalog', 'admin'],
  updateCryptoPair: ['catalog', 'admin'],
  deleteCryptoPair: ['catalog', 'admin'],
  reportPaymentSession: ['payments', 'admin'],
  getPaymentSessionHistory: ['viewer', 'payments', 'catalog', 'admin'],
  listPaymentSessions: ['viewer', 'payments', 'catalog', 'admin'],
  getPaymentSession: ['viewer', 'payments', 'catalog', 'admin'],
  listPaymentSessionCallbacks: ['viewer', 'payments', 'catalog', 'admin'],
  erasePaymentSessionPersonalData: ['payments', 'admin'],
  redeliverCallback: ['payments', 'admin'],
  listMerchants: ['viewer', 'payments', 'catalog', 'admin'],
  createMerchant: ['admin'],
  updateMerchant: ['admin'],
  listApiKeys: ['viewer', 'payments', 'catalog', 'admin'],
  createApiKey: ['admin'],
  revokeApiKey: ['admin'],
  rotateCallbackSecret: ['admin'],
  listOperators: ['viewer', 'payments', 'catalog', 'admin'],
  createOperator: ['admin'],
  revokeOperator: ['admin'],
  listAuditEvents: ['admin'],
  verifyAuditTrail: ['viewer', 'payments', 'catalog', 'admin'],
  getAuditHead: ['viewer', 'payments', 'catalog', 'admin'],
  getMetrics: ['viewer', 'payments', 'catalog', 'admin'],
  putDepositKey: ['admin'],
  listDepositKeys: ['viewer', 'payments', 'catalog', 'admin'],
  deleteDepositKey: ['admin'],
  putRate: ['catalog', 'admin'],
  listRates: ['viewer', 'payments', 'catalog', 'admin'],
  listWatchedAddresses: ['viewer', 'payments', 'catalog', 'admin'],
  reportDeposit: ['payments', 'admin'],
  listDeposits: ['viewer', 'payments', 'catalog', 'admin'],
};

const call = (t: TestApp, route: (typeof OPERATOR_ROUTES)[number], headers: object) =>
  http(t.url + route.path, {
    method: route.method,
    headers: headers as Record<string, string>,
    body: route.body,
  });

async function auditEvents(t: TestApp, query = '', size = 100) {
  const r = await http(`${t.url}/admin/audit-events?size=${size}${query}`, {
    headers: adminHeaders,
  });
  expect(r.status).toBe(200);
  return r.body.payload as {
    id: number;
    at: string;
    operator: { kind: string; id: string | null; name: string };
    action: string;
    target: string | null;
    outcome: number;
    requestId: string | null;
    changes: Record<string, { old: unknown; new: unknown }>;
    reason?: string;
    keyId: string | null;
    hash: string;
    prevHash: string;
  }[];
}

describe('operators and roles (e2e)', () => {
  let t: TestApp;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }] });
    for (const role of ROLES) tokens[role] = (await createOperator(t, role, role)).token;
  });
  afterAll(() => t.close());

  it('has exactly the roles of the matrix, and a route for every row of it', async () => {
    expect(OPERATOR_ROLES).toEqual(ROLES);
    expect(OPERATOR_ROUTES.map((r) => r.operationId).sort()).toEqual(Object.keys(MAY_CALL).sort());
  });

  it('documents every operator route, each with the roles of the matrix', async () => {
    const doc = (await http(`${t.url}/docs-json`)).body;
    const documented = new Map<string, string>();
    for (const item of Object.values<Record<string, Record<string, unknown>>>(doc.paths)) {
      for (const op of Object.values(item)) {
        if (typeof op['x-required-role'] !== 'string') continue;
        const roles = /\*\*Role:\*\* (.*) \(ADMIN_TOKEN/.exec(String(op.description))?.[1];
        documented.set(String(op.operationId), String(roles));
        // The role the route declares is the least one of the matrix's row.
        expect({ route: op.operationId, role: op['x-required-role'] }).toEqual({
          route: op.operationId,
          role: MAY_CALL[String(op.operationId)]?.[0],
        });
      }
    }
    expect(Object.fromEntries(documented)).toEqual(
      Object.fromEntries(
        Object.entries(MAY_CALL).map(([id, roles]) => [
          id,
          roles.map((r) => `\`${r}\``).join(', '),
        ]),
      ),
    );
  });

  it('lets each role call exactly the routes of the matrix; the rest are 403 insufficient_scope', async () => {
    const wrong: string[] = [];
    for (const route of OPERATOR_ROUTES) {
      for (const role of ROLES) {
        const r = await call(t, route, bearer(tokens[role]));
        const allowed = MAY_CALL[route.operationId].includes(role);
        if (allowed && [401, 403].includes(r.status)) {
          wrong.push(`${role} ${route.operationId}: ${r.status}, expected to be let in`);
        }
        if (!allowed) {
          const refusedRight =
            r.status === 403 &&
            r.body?.errors?.[0]?.errorCode === 'FORBIDDEN' &&
            r.headers.get('www-authenticate') === 'Bearer error="insufficient_scope"';
          if (!refusedRight) wrong.push(`${role} ${route.operationId}: ${r.status}, expected 403`);
        }
      }
      const root = await call(t, route, adminHeaders);
      if ([401, 403].includes(root.status)) wrong.push(`root ${route.operationId}: ${root.status}`);
      const anonymous = await call(t, route, {});
      if (anonymous.status !== 401 || anonymous.headers.get('www-authenticate') !== 'Bearer') {
        wrong.push(`no token ${route.operationId}: ${anonymous.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('shows a token once, stores only its hash, and never lists it', async () => {
    const created = await createOperator(t, 'once', 'viewer');
    expect(created.token).toMatch(/^op_[A-Za-z0-9_-]{43}$/);
    const listed = await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders });
    expect(listed.text).not.toContain(created.token);
    expect(listed.body.payload).toContainEqual(
      expect.objectContaining({ id: created.id, name: 'once', role: 'viewer' }),
    );
    expect(await t.dump()).not.toContain(created.token);
  });

  it('records when a token was last used', async () => {
    const created = await createOperator(t, 'seen', 'viewer');
    const before = await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders });
    const find = (r: HttpResult) => r.body.payload.find((o: { id: string }) => o.id === created.id);
    expect(find(before).lastUsedAt).toBeUndefined();
    expect((await http(`${t.url}/metrics`, { headers: bearer(created.token) })).status).toBe(200);
    // Written after the answer: the deadline only ends a run where it never is.
    const deadline = Date.now() + 10_000;
    let after = find(await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders }));
    while (after.lastUsedAt === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = find(await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders }));
    }
    expect(Date.parse(after.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses a revoked token on the very next request, and revoking twice is a no-op', async () => {
    const created = await createOperator(t, 'leaver', 'admin');
    expect((await http(`${t.url}/metrics`, { headers: bearer(created.token) })).status).toBe(200);
    const revoke = () =>
      http(`${t.url}/admin/operators/${created.id}`, { method: 'DELETE', headers: adminHeaders });
    expect((await revoke()).status).toBe(204);
    const refused = await http(`${t.url}/metrics`, { headers: bearer(created.token) });
    expectEnvelope(refused, 401, 'UNAUTHORIZED');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect((await revoke()).status).toBe(204);
    const listed = await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders });
    const leaver = listed.body.payload.find((o: { id: string }) => o.id === created.id);
    expect(leaver.revokedAt).toEqual(expect.any(String));
  });

  it('refuses a second working operator of the same name, and reuses a revoked one', async () => {
    const first = await createOperator(t, 'twin', 'viewer');
    const again = await http(`${t.url}/admin/operators`, {
      method: 'POST',
      headers: adminHeaders,
      body: { name: 'twin', role: 'admin' },
    });
    expectEnvelope(again, 409, 'CONFLICT');
    await http(`${t.url}/admin/operators/${first.id}`, { method: 'DELETE', headers: adminHeaders });
    await createOperator(t, 'twin', 'admin');
  });
});

describe('operators from a seed file (e2e)', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    dir = mkdtempSync(join(tmpdir(), 'gateway-seed-operators-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `npm run seed -- <file> [...]` against the running app's database. */
  async function seed(content: unknown, ...flags: string[]) {
    const path = join(dir, `seed-${Date.now()}-${Math.random()}.json`);
    writeFileSync(path, JSON.stringify(content));
    // A process of its own, as beside a service in production.
    const run = await runSeed([path, ...flags], {
      DATABASE_URL: t.config.databaseUrl,
      ...(TEST_DIALECT === 'postgres'
        ? { CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY, AUDIT_KEY: TEST_AUDIT_KEY }
        : {}),
    });
    return { ...run, path };
  }

  const report = (token: string) =>
    http(`${t.url}/admin/payment-sessions/vk_seeded_op_01`, {
      method: 'PUT',
      headers: bearer(token),
      body: { merchantId: 'acme', status: 'PENDING' },
    });

  it(
    'creates operators whose tokens, printed once, work with their role at once',
    async () => {
      await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }] });
      const file = { operators: [{ name: 'seeded-watcher', role: 'viewer' }] };

      const dry = await seed(file, '--dry-run');
      expect(dry).toMatchObject({ code: 0, err: [] });
      expect(dry.out).toEqual([
        `${dry.path}: dry run, nothing written; the file would load 0 crypto pairs (0 added or changed), ` +
          '0 merchants (0 added or changed), 0 payment sessions (0 created, 0 updated, 0 unchanged), ' +
          '1 operators (1 created, 0 given a new role)',
      ]);
      const before = await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders });
      expect(before.text).not.toContain('seeded-watcher');

      const run = await seed(file);
      expect(run).toMatchObject({ code: 0, err: [] });
      expect(run.out).toHaveLength(2);
      expect(run.out[0]).toMatch(/1 operators \(1 created, 0 given a new role\)$/);
      const token =
        /^.*: operator seeded-watcher \(viewer\) created; its token, shown only now: (op_[A-Za-z0-9_-]{43})$/.exec(
          run.out[1],
        )?.[1];
      expect(token).toBeDefined();
      expect(await t.dump()).not.toContain(token);

      expect((await http(`${t.url}/admin/merchants`, { headers: bearer(token!) })).status).toBe(
        200,
      );
      expectEnvelope(await report(token!), 403, 'FORBIDDEN');

      // The same file again: nothing created, no token printed.
      const again = await seed(file);
      expect(again.out).toEqual([
        expect.stringMatching(/1 operators \(0 created, 0 given a new role\)$/),
      ]);

      const events = await auditEvents(t, '&action=seedOperator');
      expect(events).toEqual([
        expect.objectContaining({
          operator: expect.objectContaining({ name: 'system' }),
          outcome: 201,
          changes: {
            name: { old: null, new: 'seeded-watcher' },
            role: { old: null, new: 'viewer' },
            token: { old: null, new: '[redacted]' },
          },
        }),
      ]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'gives a seeded operator a new role; the running service applies it within its token cache time',
    async () => {
      const run = await seed({ operators: [{ name: 'seeded-clerk', role: 'viewer' }] });
      const token = run.out[1].split(': ').pop()!;
      // The service keeps the token (with its role) from this request on.
      const cachedAt = Date.now();
      expectEnvelope(await report(token), 403, 'FORBIDDEN');

      const promoted = await seed({ operators: [{ name: 'seeded-clerk', role: 'payments' }] });
      expect(promoted.out).toEqual([
        expect.stringMatching(/1 operators \(0 created, 1 given a new role\)$/),
      ]);
      // On PostgreSQL the change feed tells the service at once; a SQLite service trusts what it
      // kept of a token for TOKEN_CACHE_TTL_MS.
      const deadline = Date.now() + TOKEN_CACHE_TTL_MS + 5000;
      let status = (await report(token)).status;
      while (status === 403 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = (await report(token)).status;
      }
      expect(status).toBe(201);
      // On PostgreSQL, only the change feed applies the new role before what was kept expires (a
      // second of margin).
      if (TEST_DIALECT === 'postgres') {
        expect(Date.now() - cachedAt).toBeLessThan(TOKEN_CACHE_TTL_MS - 1000);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'refuses a bad operator record, naming it, and writes nothing',
    async () => {
      const run = await seed({
        operators: [
          { name: 'fine', role: 'viewer' },
          { name: 'fine', role: 'admin' },
          { name: 'boss', role: 'root' },
        ],
      });
      expect(run.code).toBe(1);
      expect(run.out).toEqual([]);
      expect(run.err).toEqual([
        `${run.path}: operators[1]: duplicates operators[0]`,
        `${run.path}: operators[2].role: must be one of viewer, payments, catalog, admin`,
        `${run.path}: 2 error(s); nothing was written`,
      ]);
      const listed = await http(`${t.url}/admin/operators?size=100`, { headers: adminHeaders });
      expect(listed.text).not.toContain('"fine"');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('the audit trail (e2e)', () => {
  let t: TestApp;
  let alice: { id: string; token: string };

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }] });
    alice = await createOperator(t, 'alice', 'admin');
  });
  afterAll(() => t.close());

  it('records each change with its operator, action, target, outcome, request id and fields', async () => {
    const created = await http(`${t.url}/admin/crypto-pairs`, {
      method: 'POST',
      headers: { ...bearer(alice.token), 'x-request-id': 'audit-req-1' },
      body: { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
    });
    expect(created.status).toBe(201);
    const patched = await http(`${t.url}/admin/crypto-pairs/${created.body.id}`, {
      method: 'PATCH',
      headers: bearer(alice.token),
      body: { enabled: false },
    });
    expect(patched.status).toBe(200);
    const [patch, create] = await auditEvents(t, `&operator=alice&target=${created.body.id}`);
    expect(create).toMatchObject({
      operator: { kind: 'operator', id: alice.id, name: 'alice' },
      action: 'createCryptoPair',
      target: String(created.body.id),
      outcome: 201,
      requestId: 'audit-req-1',
      changes: { currencyCode: { old: null, new: 'USDT' }, enabled: { old: null, new: true } },
    });
    expect(patch).toMatchObject({
      action: 'updateCryptoPair',
      outcome: 200,
      changes: { enabled: { old: true, new: false } },
    });
  });

  it('records refused operator requests: who, and why (no token, unknown, revoked, too little power)', async () => {
    const viewer = await createOperator(t, 'victor', 'viewer');
    const leaver = await createOperator(t, 'leaver', 'admin');
    await http(`${t.url}/admin/operators/${leaver.id}`, {
      method: 'DELETE',
      headers: adminHeaders,
    });
    const unknownToken = `op_${'w'.repeat(43)}`;
    await http(`${t.url}/admin/merchants`, { method: 'POST', body: { id: 'x', name: 'x' } });
    await http(`${t.url}/admin/merchants`, {
      method: 'POST',
      headers: bearer(unknownToken),
      body: { id: 'x', name: 'x' },
    });
    await http(`${t.url}/admin/merchants/acme/api-keys`, {
      method: 'POST',
      headers: bearer(viewer.token),
    });
    const revokedTry = await http(`${t.url}/admin/merchants`, {
      method: 'POST',
      headers: bearer(leaver.token),
      body: { id: 'y', name: 'y' },
    });
    expect(revokedTry.status).toBe(401);
    const refused = await auditEvents(t, '', 4);
    expect(
      refused.map(({ operator, action, target, outcome, changes, reason }) => ({
        operator,
        action,
        target,
        outcome,
        changes,
        reason,
      })),
    ).toEqual([
      {
        operator: { kind: 'operator', id: leaver.id, name: 'leaver' },
        action: 'createMerchant',
        target: null,
        outcome: 401,
        changes: {},
        reason: 'revoked',
      },
      {
        operator: { kind: 'operator', id: viewer.id, name: 'victor' },
        action: 'createApiKey',
        target: 'acme',
        outcome: 403,
        changes: {},
        reason: 'insufficient_role',
      },
      {
        operator: { kind: 'unknown', id: null, name: 'unknown' },
        action: 'createMerchant',
        target: null,
        outcome: 401,
        changes: {},
        reason: 'unknown_token',
      },
      {
        operator: { kind: 'unknown', id: null, name: 'unknown' },
        action: 'createMerchant',
        target: null,
        outcome: 401,
        changes: {},
        reason: 'missing_token',
      },
    ]);
    // The revoked operator's attempts are found by their id; an unknown token leaves no trace of itself.
    const theirs = await auditEvents(t, `&operator=${leaver.id}`);
    expect(theirs.map((e) => [e.action, e.outcome, e.reason])).toEqual([
      ['createMerchant', 401, 'revoked'],
    ]);
    const all = JSON.stringify(await auditEvents(t));
    expect(all).not.toContain(unknownToken);
    expect(all).not.toContain(createHash('sha256').update(unknownToken).digest('hex'));
    expect(all).not.toContain(leaver.token);
  });

  it('names a refused request no route serves as spelled by its path, on both platforms', async () => {
    await http(`${t.url}/admin/no/such/route`, { method: 'DELETE' });
    await http(`${t.url}/admin/payment-sessions/a;b/personal-data/`, { method: 'DELETE' });
    await http(`${t.url}/admin/payment-sessions/a;b/personal-data`, { method: 'DELETE' });
    const refused = await auditEvents(t, '', 3);
    expect(refused.map(({ target, outcome }) => ({ target, outcome }))).toEqual([
      { target: 'a;b', outcome: 401 },
      { target: '/admin/payment-sessions/a;b/personal-data/', outcome: 401 },
      { target: '/admin/no/such/route', outcome: 401 },
    ]);
  });

  it('names money changed in the units of the API, never in stored minor units', async () => {
    const r = await http(`${t.url}/admin/payment-sessions/vk_audit_money_0001`, {
      method: 'PUT',
      headers: bearer(alice.token),
      body: {
        merchantId: 'acme',
        status: 'SUCCESSFUL',
        paymentResponse: successfulResponse({ customerFirstName: 'Niamh' }),
      },
    });
    expect(r.status).toBe(201);
    const [event] = await auditEvents(t, '&target=vk_audit_money_0001');
    expect(event.changes).toMatchObject({
      status: { old: null, new: 'SUCCESSFUL' },
      'paymentResponse.money': {
        old: null,
        new: { amount: 148.5, currency: 'EUR', presentationAmount: 'EUR148.50' },
      },
      'paymentResponse.totalFees': {
        old: null,
        new: { amount: 1.5, currency: 'EUR', presentationAmount: 'EUR1.50' },
      },
      'paymentResponse.customerFirstName': { old: null, new: '[redacted]' },
    });
    expect(JSON.stringify(event)).not.toMatch(/amountMinor|Niamh/);
  });

  it('holds no key, token, secret or hash', async () => {
    const merchant = await http(`${t.url}/admin/merchants`, {
      method: 'POST',
      headers: bearer(alice.token),
      body: { id: 'secretive', name: 'Secretive' },
    });
    const key = await http(`${t.url}/admin/merchants/secretive/api-keys`, {
      method: 'POST',
      headers: bearer(alice.token),
    });
    const rotated = await http(`${t.url}/admin/merchants/secretive/callback-secret`, {
      method: 'POST',
      headers: bearer(alice.token),
    });
    const operator = await createOperator(t, 'newcomer', 'viewer');
    const all = JSON.stringify(await auditEvents(t));
    for (const secret of [
      merchant.body.callbackSecret,
      key.body.apiKey,
      rotated.body.callbackSecret,
      operator.token,
      ADMIN_TOKEN,
      alice.token,
    ]) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('"apiKey":{"old":null,"new":"[redacted]"}');
    expect(all).toContain('"callbackSecret":{"old":"[redacted]","new":"[redacted]"}');
  });

  it('lists newest first, filters by operator, action, target and time, a page at a time', async () => {
    const all = await auditEvents(t);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const byAction = await auditEvents(t, '&action=createMerchant');
    expect(byAction.length).toBeGreaterThan(0);
    expect(byAction.every((e) => e.action === 'createMerchant')).toBe(true);
    const root = await auditEvents(t, '&operator=root');
    expect(root.every((e) => e.operator.name === 'root')).toBe(true);
    expect(root.length).toBeGreaterThan(0);
    // Names are unique regardless of case: so is the filter by name.
    expect(await auditEvents(t, '&operator=ROOT')).toEqual(root);
    const future = await auditEvents(
      t,
      `&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(future).toEqual([]);
    const page = await http(`${t.url}/admin/audit-events?size=2&page=1`, { headers: adminHeaders });
    expect(page.body.payload.map((e: { id: number }) => e.id)).toEqual(
      all.slice(2, 4).map((e) => e.id),
    );
    expect(page.body.page).toEqual({ size: 2, page: 1, total: all.length });
  });

  it('takes a date alone as that whole day (UTC), and refuses times it cannot read alike everywhere', async () => {
    const all = await auditEvents(t);
    const today = all[0].at.slice(0, 10);
    const day = await auditEvents(t, `&from=${today}&to=${today}`);
    expect(day.map((e) => e.id)).toEqual(
      all.filter((e) => e.at.startsWith(today)).map((e) => e.id),
    );
    expect(day.length).toBeGreaterThan(0);
    const untilYesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 10);
    expect(await auditEvents(t, `&to=${untilYesterday}`)).toEqual([]);
    for (const [query, field] of [
      ['to=2026-11-25T10:00', 'to'],
      ['from=2026-11-25T10:00:00', 'from'],
      ['from=2026-W48-1', 'from'],
      ['to=2026-02-30', 'to'],
      ['from=2026-11-25T24:00:00Z', 'from'],
      ['from=yesterday', 'from'],
    ]) {
      const r = await http(`${t.url}/admin/audit-events?${query}`, { headers: adminHeaders });
      const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect({ query, field: error.field, message: error.message }).toEqual({
        query,
        field,
        message: expect.stringContaining('with its time zone'),
      });
    }
  });

  it('offers no route that changes or deletes an event', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const r = await http(`${t.url}/admin/audit-events`, { method, headers: adminHeaders });
      expectEnvelope(r, 405, 'METHOD_NOT_ALLOWED');
      const one = await http(`${t.url}/admin/audit-events/1`, { method, headers: adminHeaders });
      expect([404, 405]).toContain(one.status);
    }
  });

  it('verifies the chain, and names the first event altered in the database', async () => {
    const ok = await http(`${t.url}/admin/audit-events/verify`, { headers: adminHeaders });
    expect(ok.body).toMatchObject({
      valid: true,
      headHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const dataSource = t.app.get(DataSource);
    await dataSource.query("UPDATE audit_event SET target = 'someone-else' WHERE seq = 3");
    const broken = await http(`${t.url}/admin/audit-events/verify`, { headers: adminHeaders });
    expect(broken.status).toBe(200);
    expect(broken.body).toMatchObject({ valid: false, events: 2, brokenAt: { id: 3 } });
    expect(broken.body.brokenAt.reason).toContain('altered');
  });
});

describe('personal data (e2e)', () => {
  const PERSONAL = {
    customerFirstName: 'Grainne',
    customerLastName: 'Mhaille',
    customerDob: '1530-07-02',
    senderEmailAddress: 'grainne@example.ie',
    customerAccountNumber: 'IE29AIBK93115212345678',
    accountNumber: 'IE64IRCE92050112345678',
    customerCountryCode: 'IE',
  };
  const personalValues = Object.values(PERSONAL).filter((value) => value !== 'IE');
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver.close());

  async function finalSession(t: TestApp, key: string) {
    const r = await http(`${t.url}/admin/payment-sessions/${key}`, {
      method: 'PUT',
      headers: adminHeaders,
      body: {
        merchantId: 'acme',
        status: 'SUCCESSFUL',
        returnUrl: `${receiver.url}/cb/${key}`,
        paymentResponse: successfulResponse({ ...PERSONAL, description: 'Order 7' }),
      },
    });
    expect(r.status).toBe(201);
    await callbacksWhen(t.url, key, (cbs) => cbs[0]?.state === 'delivered');
  }

  async function expectErased(t: TestApp, key: string) {
    const status = await http(`${t.url}/api/gateway/payment-status/${key}`);
    expect(status.status).toBe(200);
    const response = status.body.payload[0].paymentResponse;
    for (const field of Object.keys(PERSONAL)) expect(response).not.toHaveProperty(field);
    expect(response).toMatchObject({ description: 'Order 7', money: expect.any(Object) });
    const stored = await t.dump();
    for (const value of personalValues)
      expect({ value, stored: stored.includes(value) }).toEqual({ value, stored: false });
  }

  it('erases on request from the session, its callbacks, the kept answer and the files, once', async () => {
    const t = await startTestApp();
    try {
      await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }] });
      await finalSession(t, 'vk_erase_0001');
      // Kept in memory once read: the erasure must reach that copy too.
      const before = await http(`${t.url}/api/gateway/payment-status/vk_erase_0001`);
      expect(before.body.payload[0].paymentResponse.customerFirstName).toBe('Grainne');
      const erase = () =>
        http(`${t.url}/admin/payment-sessions/vk_erase_0001/personal-data`, {
          method: 'DELETE',
          headers: adminHeaders,
        });
      expect((await erase()).status).toBe(204);
      await expectErased(t, 'vk_erase_0001');
      expect((await erase()).status).toBe(204);
      const events = await auditEvents(t, '&action=erasePaymentSessionPersonalData');
      expect(events).toHaveLength(1);
      expect(events[0].changes).toMatchObject({
        'paymentResponse.customerFirstName': { old: '[redacted]', new: null },
      });
      expect(JSON.stringify(await auditEvents(t))).not.toContain('Grainne');
      const unknown = await http(`${t.url}/admin/payment-sessions/vk_nobody/personal-data`, {
        method: 'DELETE',
        headers: adminHeaders,
      });
      expectEnvelope(unknown, 404, 'NOT_FOUND');
    } finally {
      await t.close();
    }
  });

  it('answers the identical final report after an erasure with the same 200 no-op as before it', async () => {
    const t = await startTestApp();
    try {
      await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }] });
      const report = {
        merchantId: 'acme',
        status: 'SUCCESSFUL',
        paymentResponse: successfulResponse({ ...PERSONAL, description: 'Order 7' }),
      };
      const put = (body: unknown) =>
        http(`${t.url}/admin/payment-sessions/vk_repeat_0001`, {
          method: 'PUT',
          headers: adminHeaders,
          body,
        });
      expect((await put(report)).status).toBe(201);
      const before = await put(report);
      expect(before.status).toBe(200);
      const erased = await http(`${t.url}/admin/payment-sessions/vk_repeat_0001/personal-data`, {
        method: 'DELETE',
        headers: adminHeaders,
      });
      expect(erased.status).toBe(204);
      const after = await put(report);
      expect({ status: after.status, body: after.body }).toEqual({
        status: 200,
        body: { ...before.body, payload: expect.any(Array) },
      });
      // The repeat brings nothing back, and another report is still a conflict.
      await expectErased(t, 'vk_repeat_0001');
      const other = await put({
        ...report,
        paymentResponse: { ...report.paymentResponse, traceId: 'TRC-OTHER' },
      });
      expectEnvelope(other, 409, 'CONFLICT');
      const history = await http(`${t.url}/admin/payment-sessions/vk_repeat_0001/history`, {
        headers: adminHeaders,
      });
      expect(history.body.payload).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('erases on retention only the sessions that held personal data, seeded with their final time', async () => {
    const t = await startTestApp({
      PERSONAL_DATA_RETENTION_DAYS: '30',
      PERSONAL_DATA_SWEEP_SECONDS: '1',
    });
    try {
      const old = new Date(Date.now() - 400 * 86_400_000).toISOString();
      const recent = new Date(Date.now() - 86_400_000).toISOString();
      const successful = (
        validationKey: string,
        finalAt: string,
        personal: Record<string, unknown>,
      ) => ({
        validationKey,
        merchantId: 'acme',
        status: 'SUCCESSFUL',
        createdAt: old,
        finalAt,
        paymentResponse: successfulResponse(personal),
      });
      await t.seed({
        merchants: [{ id: 'acme', name: 'Acme' }],
        paymentSessions: [
          successful('vk_moved_personal', old, PERSONAL),
          successful('vk_moved_plain', old, {}),
          successful('vk_moved_recent', recent, PERSONAL),
          {
            validationKey: 'vk_moved_failed',
            merchantId: 'acme',
            status: 'FAILED',
            errorMessage: 'Declined',
            finalAt: old,
          },
        ],
      });
      const deadline = Date.now() + 10_000;
      let metrics = '';
      while (!/personal_data_erased_sessions_total\{reason="retention"\} 1\b/.test(metrics)) {
        if (Date.now() > deadline) throw new Error(`not erased in time:\n${metrics}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        metrics = (await http(`${t.url}/metrics`, { headers: adminHeaders })).text;
      }
      // Two sweeps more: nothing else is counted.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      metrics = (await http(`${t.url}/metrics`, { headers: adminHeaders })).text;
      expect(metrics).toMatch(/personal_data_erased_sessions_total\{reason="retention"\} 1\n/);
      const lookup = (key: string) => http(`${t.url}/api/gateway/payment-status/${key}`);
      const erased = await lookup('vk_moved_personal');
      expect(erased.body.payload[0].paymentResponse).not.toHaveProperty('customerFirstName');
      expect((await lookup('vk_moved_recent')).body.payload[0].paymentResponse).toMatchObject({
        customerFirstName: 'Grainne',
      });
      const events = await auditEvents(t, '&operator=system&action=erasePersonalDataOnRetention');
      expect(events.map((e) => e.changes)).toEqual([{ sessions: { old: null, new: 1 } }]);
      const marked = (await t.app
        .get(DataSource)
        .query(
          'SELECT validation_key FROM payment_session WHERE personal_data_erased_at IS NOT NULL',
        )) as { validation_key: string }[];
      expect(marked.map((row) => row.validation_key)).toEqual(['vk_moved_personal']);
    } finally {
      await t.close();
    }
  });

  it('erases by itself once a session has been final past the retention, and counts it', async () => {
    const t = await startTestApp({
      PERSONAL_DATA_RETENTION_DAYS: '30',
      PERSONAL_DATA_SWEEP_SECONDS: '1',
    });
    try {
      await t.seed({ merchants: [{ id: 'acme', name: 'Acme' }] });
      await finalSession(t, 'vk_old_0001');
      await finalSession(t, 'vk_recent_0001');
      const dataSource = t.app.get(DataSource);
      await dataSource.query(
        "UPDATE payment_session SET final_at = $1 WHERE validation_key = 'vk_old_0001'",
        [Date.now() - 31 * 24 * 60 * 60 * 1000],
      );
      const deadline = Date.now() + 10_000;
      let metrics = '';
      while (!/personal_data_erased_sessions_total\{reason="retention"\} 1/.test(metrics)) {
        if (Date.now() > deadline) throw new Error(`not erased in time:\n${metrics}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        metrics = (await http(`${t.url}/metrics`, { headers: adminHeaders })).text;
      }
      const old = await http(`${t.url}/api/gateway/payment-status/vk_old_0001`);
      for (const field of Object.keys(PERSONAL)) {
        expect(old.body.payload[0].paymentResponse).not.toHaveProperty(field);
      }
      const recent = await http(`${t.url}/api/gateway/payment-status/vk_recent_0001`);
      expect(recent.body.payload[0].paymentResponse.customerFirstName).toBe('Grainne');
      const events = await auditEvents(t, '&operator=system');
      expect(events).toMatchObject([
        { action: 'erasePersonalDataOnRetention', changes: { sessions: { old: null, new: 1 } } },
      ]);
    } finally {
      await t.close();
    }
  });
});
