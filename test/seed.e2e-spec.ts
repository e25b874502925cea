import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { seedCommand, seedContext } from '../src/cli/seed-command.js';
import { AppConfig, loadConfig } from '../src/config/app-config.js';
import { PROCESS_TEST_TIMEOUT_MS, runSeed } from './support/main-process.js';
import { http, startTestApp, successfulResponse } from './support/test-app.js';

const CATALOG = '/api/crypto-currency-protocol-processors';
const DEMO_FILE = join('seeds', 'demo.json');
const demo = JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as {
  cryptoPairs: { enabled?: boolean }[];
  merchants: unknown[];
  paymentSessions: { validationKey: string; status: string }[];
};

function pair(currencyCode: string, protocol: string, countryCode: string, enabled = true) {
  return { currencyCode, currencyName: `${currencyCode} coin`, protocol, countryCode, enabled };
}

const MERCHANT = { id: 'acme', name: 'Acme', apiKeys: ['acme-key-0123456789-0123456789-0123'] };

/** A database with a final (vk_done) and a PENDING (vk_wait) session, where changes start from. */
const BASE = {
  merchants: [MERCHANT],
  cryptoPairs: [pair('USDT', 'TRC20', 'IE')],
  paymentSessions: [
    {
      validationKey: 'vk_done',
      merchantId: 'acme',
      status: 'SUCCESSFUL',
      paymentResponse: successfulResponse(),
    },
    { validationKey: 'vk_wait', merchantId: 'acme', status: 'PENDING' },
  ],
};

interface Run {
  code: number;
  out: string[];
  err: string[];
}

describe('seed command (e2e)', () => {
  let dir: string;
  let config: AppConfig;
  let fileCount = 0;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-seed-'));
    config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'x.sqlite')}`, LOG_LEVEL: 'silent' });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function seed(args: string[], withConfig: AppConfig = config): Promise<Run> {
    const run: Run = { code: -1, out: [], err: [] };
    run.code = await seedCommand(args, withConfig, {
      out: (line) => run.out.push(line),
      err: (line) => run.err.push(line),
    });
    return run;
  }

  /** Writes a seed file into the test folder and returns its path. */
  function file(content: unknown, raw?: string): string {
    const path = join(dir, `seed-${++fileCount}.json`);
    writeFileSync(path, raw ?? JSON.stringify(content, null, 2));
    return path;
  }

  /** Row counts of the database, read through a fresh context (another connection). */
  async function counts(withConfig: AppConfig = config) {
    const context = await seedContext(withConfig);
    try {
      const db = context.get(DataSource);
      const count = async (table: string) =>
        Number((await db.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
      return {
        pairs: await count('crypto_pair'),
        merchants: await count('merchant'),
        keys: await count('api_key'),
        sessions: await count('payment_session'),
        transitions: await count('payment_session_transition'),
      };
    } finally {
      await context.close();
    }
  }

  async function sessionRows(withConfig: AppConfig = config) {
    const context = await seedContext(withConfig);
    try {
      return (await context
        .get(DataSource)
        .query('SELECT validation_key AS k, status FROM payment_session ORDER BY k')) as {
        k: string;
        status: string;
      }[];
    } finally {
      await context.close();
    }
  }

  it('loads the demo file, then a re-run changes nothing', async () => {
    const first = await seed([DEMO_FILE]);
    expect(first.err).toEqual([]);
    expect(first.code).toBe(0);
    const pairs = demo.cryptoPairs.length;
    const sessions = demo.paymentSessions.length;
    expect(first.out).toEqual([
      `${DEMO_FILE}: ${pairs} crypto pairs (${pairs} added or changed), 1 merchants (1 added or changed), ` +
        `${sessions} payment sessions (${sessions} created, 0 updated, 0 unchanged)`,
    ]);
    const before = await counts();
    expect(before).toMatchObject({ pairs, merchants: 1, keys: 1, sessions, transitions: sessions });

    const second = await seed([DEMO_FILE]);
    expect(second.code).toBe(0);
    expect(second.err).toEqual([]);
    expect(second.out).toEqual([
      `${DEMO_FILE}: ${pairs} crypto pairs (0 added or changed), 1 merchants (0 added or changed), ` +
        `${sessions} payment sessions (0 created, 0 updated, ${sessions} unchanged)`,
    ]);
    expect(await counts()).toEqual(before);
  });

  it('serves the seeded demo data to the app on the same database', async () => {
    expect((await seed([DEMO_FILE])).code).toBe(0);
    const t = await startTestApp({ DATABASE_URL: config.databaseUrl });
    try {
      const catalog = await http(t.url + CATALOG);
      expect(catalog.status).toBe(200);
      expect(catalog.body.page.total).toBe(
        demo.cryptoPairs.filter((p) => p.enabled !== false).length,
      );
      for (const session of demo.paymentSessions) {
        const r = await http(t.url + `/api/gateway/payment-status/${session.validationKey}`);
        expect(r.status).toBe(200);
        expect(r.body.payload).toEqual([expect.objectContaining({ status: session.status })]);
      }
    } finally {
      await t.close();
    }
  });

  it('refuses a file with bad records, one line each, and writes nothing', async () => {
    expect((await seed([file({ cryptoPairs: [pair('USDT', 'TRC20', 'IE')] })])).code).toBe(0);
    const before = await counts();

    const bad = file({
      cryptoPairs: [
        pair('USDT', 'ERC20', 'IE'),
        pair('US-DT', 'ERC20', 'DE'),
        pair('USDT', 'ERC20', 'FR'),
        pair('USDT', 'ERC20', 'IRL'),
        pair('USDC', 'ERC20', 'ES'),
      ],
      merchants: [MERCHANT],
      paymentSessions: [
        { validationKey: 'vk_new', merchantId: 'acme', status: 'PENDING' },
        { validationKey: 'vk_bad', merchantId: 'acme', status: 'FAILED' },
      ],
    });
    const run = await seed([bad]);
    expect(run.code).toBe(1);
    expect(run.out).toEqual([]);
    const recordLines = run.err.filter((line) =>
      /^[A-Za-z]+\[\d+\]\S*: /.test(line.slice(`${bad}: `.length)),
    );
    expect(run.err).toContain(`${bad}: cryptoPairs[3].countryCode: must be two letters A-Z`);
    expect(run.err).toContain(
      `${bad}: cryptoPairs[1].currencyCode: must be 1 to 16 letters or digits`,
    );
    expect(run.err).toContain(
      `${bad}: paymentSessions[1].errorMessage: is required when status is FAILED`,
    );
    expect(recordLines).toHaveLength(3);
    for (const line of run.err) expect(line.startsWith(`${bad}: `)).toBe(true);

    expect(await counts()).toEqual(before);
    const t = await startTestApp({ DATABASE_URL: config.databaseUrl });
    try {
      const r = await http(t.url + CATALOG);
      expect(r.body.page.total).toBe(1);
      const session = await http(t.url + '/api/gateway/payment-status/vk_new');
      expect(session.status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('--dry-run validates only and writes nothing', async () => {
    expect((await seed([file({ cryptoPairs: [pair('USDT', 'TRC20', 'IE')] })])).code).toBe(0);
    const before = await counts();

    const run = await seed(['--dry-run', DEMO_FILE]);
    expect(run.code).toBe(0);
    expect(run.err).toEqual([]);
    expect(run.out).toHaveLength(1);
    expect(run.out[0]).toContain(DEMO_FILE);
    expect(run.out[0]).toMatch(/dry run/);
    expect(await counts()).toEqual(before);

    const bad = file({ cryptoPairs: [pair('USDT', 'TRC20', 'I1')] });
    const badRun = await seed([bad, '--dry-run']);
    expect(badRun.code).toBe(1);
    expect(badRun.err).toContain(`${bad}: cryptoPairs[0].countryCode: must be two letters A-Z`);
    expect(await counts()).toEqual(before);
  });

  it('--dry-run on an empty database creates no data', async () => {
    const run = await seed([DEMO_FILE, '--dry-run']);
    expect(run.code).toBe(0);
    expect(await counts()).toMatchObject({ pairs: 0, merchants: 0, sessions: 0 });
  });

  /** Every row of every table (schema included), read without migrating. */
  async function contents(withConfig: AppConfig = config) {
    const context = await seedContext(withConfig, { migrate: false });
    try {
      const db = context.get(DataSource);
      const tables = (await db.query(
        "SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name",
      )) as { name: string; sql: string | null }[];
      const rows: Record<string, unknown> = {};
      for (const { name } of tables.filter((t) => t.sql?.startsWith('CREATE TABLE'))) {
        rows[name] = await db.query(`SELECT * FROM "${name}" ORDER BY 1`);
      }
      return { tables, rows };
    } finally {
      await context.close();
    }
  }

  describe('--dry-run runs every check of the real run, then rolls back', () => {
    it.each([
      [
        'names an unknown merchant',
        {
          cryptoPairs: [pair('USDC', 'ERC20', 'DE')],
          paymentSessions: [{ validationKey: 'vk_new', merchantId: 'nobody', status: 'PENDING' }],
        },
        ['paymentSessions[0].merchantId: must name an existing merchant'],
      ],
      [
        'changes a final session',
        {
          merchants: [{ id: 'other', name: 'Other' }],
          paymentSessions: [
            { validationKey: 'vk_wait', merchantId: 'acme', status: 'NOT_COMPLETED' },
            { validationKey: 'vk_done', merchantId: 'acme', status: 'FAILED', errorMessage: 'x' },
          ],
        },
        [
          'paymentSessions[1].status: The payment session is SUCCESSFUL, a final state; it cannot change.',
        ],
      ],
      [
        'moves a session to another merchant',
        {
          merchants: [{ id: 'other', name: 'Other' }],
          paymentSessions: [{ validationKey: 'vk_wait', merchantId: 'other', status: 'PENDING' }],
        },
        ['paymentSessions[0].merchantId: This payment session belongs to another merchant.'],
      ],
    ])(
      'refuses a file that %s with the lines and exit code of the real run',
      async (_what, content, lines) => {
        expect((await seed([file(BASE)])).code).toBe(0);
        const before = await contents();
        const bad = file(content);
        const expected = [
          ...lines.map((line) => `${bad}: ${line}`),
          `${bad}: ${lines.length} error(s); nothing was written`,
        ];

        const dry = await seed([bad, '--dry-run']);
        expect(dry).toEqual({ code: 1, out: [], err: expected });
        expect(await contents()).toEqual(before);

        const real = await seed([bad]);
        expect(real).toEqual({ code: 1, out: [], err: expected });
        expect(await contents()).toEqual(before);
      },
    );

    it('refuses a null in any record field, naming each, and writes nothing', async () => {
      expect((await seed([file(BASE)])).code).toBe(0);
      const before = await contents();
      const bad = file({
        cryptoPairs: [{ ...pair('USDC', 'ERC20', 'DE'), enabled: null }],
        paymentSessions: [
          { validationKey: 'vk_null_1', merchantId: 'acme', status: 'FAILED', errorMessage: null },
          {
            validationKey: 'vk_null_2',
            merchantId: 'acme',
            status: 'SUCCESSFUL',
            paymentResponse: successfulResponse({ transactionReference: null, description: null }),
          },
        ],
      });
      const run = await seed([bad]);
      expect(run.code).toBe(1);
      expect(run.out).toEqual([]);
      const fields = run.err.slice(0, -1).map((line) => line.slice(bad.length + 2).split(':')[0]);
      expect(fields.sort()).toEqual([
        'cryptoPairs[0].enabled',
        'paymentSessions[0].errorMessage',
        'paymentSessions[1].paymentResponse.description',
        'paymentSessions[1].paymentResponse.transactionReference',
      ]);
      expect(await contents()).toEqual(before);
    });

    it('accepts a valid file, says what it would change, and leaves every row as it was', async () => {
      expect((await seed([file(BASE)])).code).toBe(0);
      const before = await contents();
      const change = file({
        merchants: [
          { ...MERCHANT, name: 'Acme Ltd' },
          { id: 'other', name: 'Other' },
        ],
        cryptoPairs: [pair('USDT', 'TRC20', 'IE', false), pair('USDC', 'ERC20', 'DE')],
        paymentSessions: [
          { validationKey: 'vk_wait', merchantId: 'acme', status: 'NOT_COMPLETED' },
          { validationKey: 'vk_fresh', merchantId: 'other', status: 'PENDING' },
          BASE.paymentSessions[0],
        ],
      });
      const summary =
        '2 crypto pairs (2 added or changed), 2 merchants (2 added or changed), ' +
        '3 payment sessions (1 created, 1 updated, 1 unchanged)';

      const dry = await seed([change, '--dry-run']);
      expect(dry).toEqual({
        code: 0,
        out: [`${change}: dry run, nothing written; the file would load ${summary}`],
        err: [],
      });
      expect(await contents()).toEqual(before);

      // The real run then does what the dry run announced.
      expect(await seed([change])).toEqual({ code: 0, out: [`${change}: ${summary}`], err: [] });
      expect(await contents()).not.toEqual(before);
    });

    it('leaves no database file behind when there was none', async () => {
      const path = join(dir, 'new', 'never.sqlite');
      const fresh = loadConfig({ DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'silent' });
      const run = await seed([DEMO_FILE, '--dry-run'], fresh);
      expect(run.code).toBe(0);
      expect(run.out[0]).toMatch(/would load \d+ crypto pairs \(\d+ added or changed\)/);
      expect(existsSync(path)).toBe(false);
    });

    it('migrates an unmigrated database only inside the transaction it rolls back', async () => {
      writeFileSync(join(dir, 'x.sqlite'), '');
      const before = await contents();
      expect(before.tables).toEqual([]);
      const run = await seed([DEMO_FILE, '--dry-run']);
      expect(run.code).toBe(0);
      expect(await contents()).toEqual(before);
    });
  });

  it.each([false, true])(
    'refuses an unknown top-level section as a bad record (dry run: %s)',
    async (dryRun) => {
      const bad = file({
        cryptoPairs: [pair('USDT', 'TRC20', 'IE')],
        paymentSession: [{ validationKey: 'vk_1', merchantId: 'acme', status: 'PENDING' }],
        'two\nlines': true,
      });
      const run = await seed(dryRun ? [bad, '--dry-run'] : [bad]);
      expect(run).toEqual({
        code: 1,
        out: [],
        err: [
          `${bad}: "two\\nlines": is not a known section (cryptoPairs, merchants, paymentSessions, operators)`,
          `${bad}: paymentSession: is not a known section (cryptoPairs, merchants, paymentSessions, operators)`,
          `${bad}: 2 error(s); nothing was written`,
        ],
      });
      expect(await counts()).toMatchObject({ pairs: 0 });
    },
  );

  it('refuses codes with letters that upper-case into ASCII (ſol, ſpl, ıt)', async () => {
    const bad = file({ cryptoPairs: [pair('ſol', 'ſpl', 'ıt'), pair('SOL', 'SPL', 'IT')] });
    const run = await seed([bad]);
    expect(run).toEqual({
      code: 1,
      out: [],
      err: [
        `${bad}: cryptoPairs[0].countryCode: must be two letters A-Z`,
        `${bad}: cryptoPairs[0].currencyCode: must be 1 to 16 letters or digits`,
        `${bad}: cryptoPairs[0].protocol: must be 1 to 32 of the characters A-Z a-z 0-9 _ -`,
        `${bad}: 3 error(s); nothing was written`,
      ],
    });
    expect(await counts()).toMatchObject({ pairs: 0 });
  });

  it('refuses a record with a field the format does not know, naming its path', async () => {
    const bad = file({
      cryptoPairs: [{ ...pair('SOL', 'SPL', 'IT'), enable: false }],
      paymentSessions: [
        {
          validationKey: 'vk_typo_0001',
          merchantId: 'demo',
          status: 'FAILED',
          errorMessage: 'Declined',
          finalat: '2025-01-01T00:00:00Z',
        },
      ],
    });
    const run = await seed([bad]);
    expect(run).toEqual({
      code: 1,
      out: [],
      err: [
        `${bad}: cryptoPairs[0].enable: is not a field of this record: check its spelling`,
        `${bad}: paymentSessions[0].finalat: is not a field of this record: check its spelling`,
        `${bad}: 2 error(s); nothing was written`,
      ],
    });
    expect(await counts()).toMatchObject({ pairs: 0 });
  });

  it('refuses control characters and amounts a double would round, with each record path', async () => {
    const session = JSON.stringify({
      validationKey: 'vk_money',
      merchantId: 'acme',
      status: 'SUCCESSFUL',
      paymentResponse: { ...successfulResponse(), money: { amount: 0, currency: 'EUR' } },
    }).replace('"money":{"amount":0', '"money":{"amount":1.0000000000000000001');
    const bad = file(
      undefined,
      '{"merchants":[{"id":"acme","name":"Ac\\u001bme"}],"cryptoPairs":[{"currencyCode":"USDT",' +
        '"currencyName":"Teth\\ud800er","protocol":"TRC20","countryCode":"IE"}],' +
        `"paymentSessions":[${session}]}`,
    );
    const run = await seed([bad]);
    const rule =
      'must be text without control characters, lone surrogates or bytes that are not UTF-8';
    expect(run.err).toEqual([
      `${bad}: cryptoPairs[0].currencyName: ${rule}`,
      `${bad}: merchants[0].name: ${rule}`,
      `${bad}: paymentSessions[0].paymentResponse.money.amount: must be a non-negative amount with at most two decimals, at most 999999999999.99`,
      `${bad}: 3 error(s); nothing was written`,
    ]);
    expect(run.code).toBe(1);
    expect(await counts()).toMatchObject({ pairs: 0, merchants: 0, sessions: 0 });
  });

  it('refuses a file that is not UTF-8 as a whole, with one clear line', async () => {
    const bad = join(dir, 'not-utf8.json');
    writeFileSync(
      bad,
      Buffer.concat([
        Buffer.from('{"merchants":[{"id":"acme","name":"Ac'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('me"}]}'),
      ]),
    );
    const run = await seed([bad]);
    expect(run.code).toBe(1);
    expect(run.err).toEqual([
      expect.stringMatching(/^.*not-utf8\.json: not valid JSON \(.*utf-8\)$/),
    ]);
    expect(await counts()).toMatchObject({ merchants: 0 });
  });

  it('refuses a file that is not valid JSON with one clear line', async () => {
    const broken = file(undefined, '{"cryptoPairs": [ {"currencyCode": "USDT", ');
    const run = await seed([broken]);
    expect(run.code).toBe(1);
    expect(run.out).toEqual([]);
    expect(run.err).toHaveLength(1);
    expect(run.err[0].startsWith(`${broken}: `)).toBe(true);
    expect(run.err[0]).toMatch(/not valid JSON/);
  });

  it('reports a section that is not a list as a bad record line, exit 1', async () => {
    const bad = file({ cryptoPairs: { currencyCode: 'USDT' }, merchants: [MERCHANT] });
    const run = await seed([bad]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`${bad}: cryptoPairs: must be a list of records`);
    expect(await counts()).toMatchObject({ pairs: 0, merchants: 0 });
  });

  it('refuses a file that cannot be read', async () => {
    const missing = join(dir, 'missing.json');
    const run = await seed([missing]);
    expect(run.code).toBe(1);
    expect(run.err).toHaveLength(1);
    expect(run.err[0].startsWith(`${missing}: `)).toBe(true);
  });

  it('refuses to change a final session and writes nothing else from that file', async () => {
    const base = file(BASE);
    expect((await seed([base])).code).toBe(0);
    const before = await counts();
    const rowsBefore = await sessionRows();

    const change = file({
      merchants: [{ id: 'other', name: 'Other' }],
      cryptoPairs: [pair('USDT', 'TRC20', 'IE', false), pair('USDC', 'ERC20', 'DE')],
      paymentSessions: [
        { validationKey: 'vk_wait', merchantId: 'acme', status: 'NOT_COMPLETED' },
        { validationKey: 'vk_fresh', merchantId: 'acme', status: 'PENDING' },
        { validationKey: 'vk_done', merchantId: 'acme', status: 'FAILED', errorMessage: 'Late' },
      ],
    });
    const run = await seed([change]);
    expect(run.code).toBe(1);
    expect(run.out).toEqual([]);
    const named = run.err.filter((line) => line.startsWith(`${change}: paymentSessions[`));
    expect(named).toHaveLength(1);
    expect(named[0]).toMatch(new RegExp(`^${escape(change)}: paymentSessions\\[2\\](\\.\\w+)?: `));
    expect(named[0]).toMatch(/SUCCESSFUL|final/);

    expect(await counts()).toEqual(before);
    expect(await sessionRows()).toEqual(rowsBefore);
    const t = await startTestApp({ DATABASE_URL: config.databaseUrl });
    try {
      const catalog = await http(t.url + CATALOG);
      expect(catalog.body.payload).toEqual([
        expect.objectContaining({ currencyCode: 'USDT', protocol: 'TRC20', countryCode: 'IE' }),
      ]);
      const done = await http(t.url + '/api/gateway/payment-status/vk_done');
      expect(done.body.payload[0].status).toBe('SUCCESSFUL');
      const wait = await http(t.url + '/api/gateway/payment-status/vk_wait');
      expect(wait.body.payload).toEqual([{ status: 'PENDING' }]);
      expect((await http(t.url + '/api/gateway/payment-status/vk_fresh')).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('accepts the identical final report again as a no-op', async () => {
    const content = {
      merchants: [MERCHANT],
      paymentSessions: [
        { validationKey: 'vk_f', merchantId: 'acme', status: 'FAILED', errorMessage: 'Declined' },
      ],
    };
    expect((await seed([file(content)])).code).toBe(0);
    const again = await seed([file(content)]);
    expect(again.code).toBe(0);
    expect(again.out[0]).toMatch(/1 payment sessions \(0 created, 0 updated, 1 unchanged\)/);
  });

  it.each([
    ['no file', []],
    ['two files', ['a.json', 'b.json']],
    ['only --dry-run', ['--dry-run']],
    ['an unknown option', ['--force']],
  ])('exits 2 with the usage on %s', async (_what, args) => {
    const run = await seed(args);
    expect(run.code).toBe(2);
    expect(run.out).toEqual([]);
    expect(run.err).toHaveLength(1);
    expect(run.err[0]).toMatch(/usage/i);
    expect(run.err[0]).toContain('--dry-run');
  });

  it(
    'is visible at once to a running app, despite its catalog cache',
    async () => {
      const t = await startTestApp();
      try {
        await t.seed({ cryptoPairs: [pair('USDT', 'TRC20', 'IE'), pair('USDT', 'ERC20', 'IE')] });
        const query = t.url + CATALOG + '?countryCode=PT';
        const ieQuery = t.url + CATALOG + '?countryCode=IE';
        // Read (and so cache) the exact queries first.
        expect((await http(query)).body.page.total).toBe(0);
        expect((await http(query)).body.page.total).toBe(0);
        expect((await http(ieQuery)).body.page.total).toBe(2);

        // The command runs in a process of its own, as beside a service in production.
        const run = await runSeed(
          [
            file({
              cryptoPairs: [pair('USDT', 'TRC20', 'PT'), pair('USDT', 'ERC20', 'IE', false)],
            }),
          ],
          { DATABASE_URL: t.config.databaseUrl },
        );
        expect(run).toMatchObject({ code: 0, err: [] });

        const after = await http(query);
        expect(after.status).toBe(200);
        expect(after.body.page.total).toBe(1);
        expect(after.body.payload).toEqual([
          { currencyCode: 'USDT', currencyName: 'USDT coin', protocol: 'TRC20', countryCode: 'PT' },
        ]);
        const ie = await http(ieQuery);
        expect(ie.body.payload.map((p: { protocol: string }) => p.protocol)).toEqual(['TRC20']);
      } finally {
        await t.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
