import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { seedCommand, seedContext } from '../src/cli/seed-command.js';
import { AppConfig, loadConfig } from '../src/config/app-config.js';
import { progressLines } from '../src/seeding/seed-progress.js';
import { completePaymentResponse } from './support/payment-response-samples.js';
import { PROCESS_TEST_TIMEOUT_MS } from './support/main-process.js';
import {
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
  TEST_DIALECT,
  freshDatabase,
} from './support/test-app.js';

/**
 * Seed files read as a stream, on the database of the project (SQLite, and PostgreSQL in the
 * e2e-postgres project): a bad record anywhere refuses the whole file, the dry run announces what
 * the real run does, sections are taken as JSON.parse reads them, progress shows on long runs.
 */

const STATUSES = ['SUCCESSFUL', 'PENDING', 'NOT_COMPLETED', 'FAILED'] as const;

/** A session of each status shape in turn; SUCCESSFUL ones carry every payment response field. */
function session(index: number, merchantId = 'acme') {
  const status = STATUSES[index % 4];
  return {
    validationKey: `vk_stream_${index}`,
    merchantId,
    status,
    ...(status === 'SUCCESSFUL' ? { paymentResponse: completePaymentResponse() } : {}),
    ...(status === 'FAILED' ? { errorMessage: 'Declined', detailedStatus: 'DECLINED' } : {}),
    ...(status === 'NOT_COMPLETED' ? { detailedStatus: 'ABANDONED_BY_USER' } : {}),
  };
}

function pair(index: number, name = 'Coin') {
  return {
    currencyCode: `C${index % 40}`,
    currencyName: name,
    protocol: `P${Math.floor(index / 40)}`,
    countryCode: 'IE',
    enabled: index % 7 !== 0,
  };
}

const MERCHANT = { id: 'acme', name: 'Acme', apiKeys: ['acme-key-0123456789-0123456789-0123'] };

interface Run {
  code: number;
  out: string[];
  err: string[];
}

describe('seed files read as a stream (e2e)', () => {
  let dir: string;
  let config: AppConfig;
  let drop: () => Promise<void>;
  let files = 0;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-seed-stream-'));
    const database = await freshDatabase(dir);
    drop = database.drop;
    config = loadConfig({
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      ...(TEST_DIALECT === 'postgres'
        ? { CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY, AUDIT_KEY: TEST_AUDIT_KEY }
        : {}),
    });
  });
  afterEach(async () => {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  function file(content: unknown): string {
    const path = join(dir, `seed-${++files}.json`);
    writeFileSync(path, JSON.stringify(content));
    return path;
  }

  async function seed(
    args: string[],
    progress?: (file: string) => ReturnType<typeof progressLines>,
  ) {
    const run: Run = { code: -1, out: [], err: [] };
    run.code = await seedCommand(args, config, {
      out: (line) => run.out.push(line),
      err: (line) => run.err.push(line),
      progress,
    });
    return run;
  }

  /** What a client or the operator could ever see of the data: every stored row but times. */
  async function contents() {
    const context = await seedContext(config);
    try {
      const db = context.get(DataSource);
      const rows = (sql: string) => db.query(sql) as Promise<unknown[]>;
      return {
        pairs: await rows(
          'SELECT currency_code, currency_name, protocol, country_code, enabled FROM crypto_pair ORDER BY 1, 3, 4',
        ),
        revision: await rows('SELECT revision FROM catalog_revision'),
        merchants: await rows('SELECT id, name FROM merchant ORDER BY id'),
        keys: await rows('SELECT merchant_id, key_hash, last4 FROM api_key ORDER BY key_hash'),
        sessions: await rows(
          'SELECT validation_key, merchant_id, status, detailed_status, error_message, payment_response, version FROM payment_session ORDER BY 1',
        ),
        transitions: await rows(
          'SELECT validation_key, version, from_status, to_status FROM payment_session_transition ORDER BY 1, 2',
        ),
      };
    } finally {
      await context.close();
    }
  }

  it('refuses a file whose last record is bad, naming it, and changes nothing', async () => {
    expect(
      (await seed([file({ merchants: [MERCHANT], paymentSessions: [session(1)] })])).code,
    ).toBe(0);
    const before = await contents();
    const sessions = Array.from({ length: 2500 }, (_, i) => session(i));
    sessions[2499] = { ...session(2499), status: 'FAILED', errorMessage: undefined } as never;
    const bad = file({
      cryptoPairs: Array.from({ length: 300 }, (_, i) => pair(i)),
      merchants: [MERCHANT, { id: 'globex', name: 'Globex' }],
      paymentSessions: sessions,
    });

    for (const args of [[bad], [bad, '--dry-run']]) {
      expect(await seed(args)).toEqual({
        code: 1,
        out: [],
        err: [
          `${bad}: paymentSessions[2499].errorMessage: is required when status is FAILED`,
          `${bad}: 1 error(s); nothing was written`,
        ],
      });
      expect(await contents()).toEqual(before);
    }
  });

  it('refuses a file whose last record the state machine refuses, and changes nothing', async () => {
    const done = { ...session(0), validationKey: 'vk_done' };
    expect((await seed([file({ merchants: [MERCHANT], paymentSessions: [done] })])).code).toBe(0);
    const before = await contents();
    const bad = file({
      paymentSessions: [
        ...Array.from({ length: 1500 }, (_, i) => session(i)),
        { ...done, status: 'FAILED', errorMessage: 'Late', paymentResponse: undefined },
      ],
    });
    expect(await seed([bad])).toEqual({
      code: 1,
      out: [],
      err: [
        `${bad}: paymentSessions[1500].status: The payment session is SUCCESSFUL, a final state; it cannot change.`,
        `${bad}: 1 error(s); nothing was written`,
      ],
    });
    expect(await contents()).toEqual(before);
  });

  it('a dry run prints the summary the real run then prints, and writes nothing', async () => {
    const first = {
      merchants: [MERCHANT],
      cryptoPairs: Array.from({ length: 100 }, (_, i) => pair(i)),
      paymentSessions: Array.from({ length: 1200 }, (_, i) => session(i)),
    };
    expect((await seed([file(first)])).code).toBe(0);
    const before = await contents();
    // Pairs renamed or added; PENDING sessions move to FAILED, new ones come, the rest repeat.
    const next = file({
      cryptoPairs: Array.from({ length: 150 }, (_, i) => pair(i, i < 50 ? 'Renamed' : 'Coin')),
      paymentSessions: [
        ...first.paymentSessions.map((s) =>
          s.status === 'PENDING' ? { ...s, status: 'FAILED', errorMessage: 'Expired' } : s,
        ),
        ...Array.from({ length: 300 }, (_, i) => session(2000 + i)),
      ],
    });
    const summary =
      '150 crypto pairs (100 added or changed), 0 merchants (0 added or changed), ' +
      '1500 payment sessions (300 created, 300 updated, 900 unchanged)';

    expect(await seed([next, '--dry-run'])).toEqual({
      code: 0,
      out: [`${next}: dry run, nothing written; the file would load ${summary}`],
      err: [],
    });
    expect(await contents()).toEqual(before);
    expect(await seed([next])).toEqual({ code: 0, out: [`${next}: ${summary}`], err: [] });
    const after = await contents();
    expect(after.transitions).toHaveLength(before.transitions.length + 600);
    expect(after.revision).not.toEqual(before.revision);
    // The same file again changes nothing, the catalog revision included.
    expect((await seed([next])).out[0]).toMatch(/\(0 added or changed\).*\(0 created, 0 updated/);
    expect(await contents()).toEqual(after);
  });

  it('takes the sections as JSON.parse reads the file: any order, the last of a repeated one', async () => {
    const raw =
      `{"paymentSessions": ${JSON.stringify([session(0, 'late'), session(1, 'late')])},` +
      ` "cryptoPairs": ${JSON.stringify([pair(1, 'Dropped')])},` +
      ` "merchants": ${JSON.stringify([{ id: 'late', name: 'Late' }])},` +
      ` "cryptoPairs": ${JSON.stringify([pair(2, 'Kept')])}}`;
    const path = join(dir, 'ordered.json');
    writeFileSync(path, raw);
    expect(await seed([path])).toEqual({
      code: 0,
      out: [
        `${path}: 1 crypto pairs (1 added or changed), 1 merchants (1 added or changed), ` +
          '2 payment sessions (2 created, 0 updated, 0 unchanged)',
      ],
      err: [],
    });
    const stored = await contents();
    expect(stored.pairs).toEqual([expect.objectContaining({ currency_name: 'Kept' })]);
    expect(stored.sessions).toHaveLength(2);
  });

  it('reports a record that is not JSON by its place, and writes nothing', async () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, `{"merchants": [${JSON.stringify(MERCHANT)}, {"id": "x", "name": }]}`);
    const run = await seed([path]);
    expect(run.code).toBe(1);
    expect(run.err).toEqual([expect.stringMatching(/^.*: not valid JSON \(.*merchants\[1\]\)$/)]);
    expect((await contents()).merchants).toEqual([]);
  });

  it('shows progress lines, one per interval at least, while a run lasts', async () => {
    const lines: string[] = [];
    const big = file({
      merchants: [MERCHANT],
      paymentSessions: Array.from({ length: 4000 }, (_, i) => session(i)),
    });
    const run = await seed([big], (name) =>
      progressLines((line) => lines.push(line), name, { intervalMs: 20 }),
    );
    expect(run.code).toBe(0);
    expect(run.err).toEqual([]);
    // 'starting' while the database opens and migrates, then the sections as they are read.
    const reading = lines.filter((line) => line !== `${big}: starting`);
    expect(reading.length).toBeGreaterThan(0);
    for (const line of reading) {
      expect(line).toMatch(
        new RegExp(
          `^${escape(big)}: (merchants|paymentSessions): [\\d,]+ records \\([\\d,]+/s\\), \\d+% of the file`,
        ),
      );
    }
  });

  it('starts the retention clock of sessions it makes final, created or updated', async () => {
    const first = Array.from({ length: 8 }, (_, i) => session(i));
    expect((await seed([file({ merchants: [MERCHANT], paymentSessions: first })])).code).toBe(0);
    const settled = first.map((s) =>
      s.status === 'PENDING' ? { ...s, status: 'FAILED', errorMessage: 'Expired' } : s,
    );
    const started = Date.now();
    expect((await seed([file({ paymentSessions: settled })])).code).toBe(0);

    const context = await seedContext(config);
    try {
      const rows = (await context
        .get(DataSource)
        .query('SELECT validation_key, status, final_at FROM payment_session')) as {
        validation_key: string;
        status: string;
        final_at: number | string | null;
      }[];
      const finalAt = Object.fromEntries(
        rows.map((row) => [
          row.validation_key,
          row.final_at === null ? null : Number(row.final_at),
        ]),
      );
      for (const s of settled) {
        if (s.status === 'NOT_COMPLETED') expect(finalAt[s.validationKey]).toBeNull();
        else expect(finalAt[s.validationKey]).toEqual(expect.any(Number));
      }
      // The sessions that were PENDING became final in the second run, not the first.
      for (const s of first.filter((s) => s.status === 'PENDING')) {
        expect(finalAt[s.validationKey]).toBeGreaterThanOrEqual(started);
      }
    } finally {
      await context.close();
    }
  });

  it(
    'runs as the built command, reading on a thread of its own',
    async () => {
      const path = file({
        merchants: [MERCHANT],
        paymentSessions: Array.from({ length: 500 }, (_, i) => session(i)),
      });
      const { stdout } = await promisify(execFile)(process.execPath, ['dist/seed.js', path], {
        env: {
          ...process.env,
          DATABASE_URL: config.databaseUrl,
          LOG_LEVEL: 'silent',
          ...(TEST_DIALECT === 'postgres'
            ? { CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY, AUDIT_KEY: TEST_AUDIT_KEY }
            : {}),
        },
      });
      expect(stdout).toBe(
        `${path}: 0 crypto pairs (0 added or changed), 1 merchants (1 added or changed), ` +
          '500 payment sessions (500 created, 0 updated, 0 unchanged)\n',
      );
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
