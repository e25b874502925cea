import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, Table } from 'typeorm';
import { seedCommand } from '../src/cli/seed-command.js';
import { loadConfig } from '../src/config/app-config.js';
import { dataSourceOptions, MIGRATIONS } from '../src/schema/data-source-options.js';
import { poolOf, runMigrationsOnce } from '../src/database/dialect.js';
import { freshDatabase, TEST_CALLBACK_SECRET_KEY, TEST_AUDIT_KEY } from './support/test-app.js';

/** One column as both databases can describe it. */
function columnType(type: string, length: string): string {
  const base = type.toLowerCase();
  const normal =
    base === 'character varying'
      ? 'varchar'
      : base === 'timestamp with time zone' || base === 'datetime'
        ? 'timestamp'
        : base === 'int' || base === 'int4'
          ? 'integer'
          : base;
  return length ? `${normal}(${length})` : normal;
}

/** Tables, columns, keys, indexes and unique constraints, in a form both databases share. */
async function schemaOf(dataSource: DataSource) {
  const runner = dataSource.createQueryRunner();
  try {
    const names = (await runner.getTables())
      .map((t: Table) => t.name.replace(/^public\./, ''))
      .filter((n) => !n.includes('.') && !/migrations$|^sqlite_/.test(n));
    const tables = await runner.getTables(names);
    const order = await indexColumnOrder(dataSource);
    return Object.fromEntries(
      tables
        .map((table) => [
          table.name.replace(/^public\./, ''),
          {
            columns: table.columns
              .map((c) => ({
                name: c.name,
                type: columnType(c.type, c.length),
                nullable: c.isNullable,
                primary: c.isPrimary,
                generated: c.isGenerated,
              }))
              .sort((a, b) => a.name.localeCompare(b.name)),
            // A unique constraint and a unique index say the same thing; list both the same way.
            indexes: [
              ...table.indices.map((i) => ({
                name: i.name,
                columns: order[i.name ?? ''] ?? i.columnNames,
                unique: !!i.isUnique,
              })),
              ...table.uniques.map((u) => ({ name: u.name, columns: u.columnNames, unique: true })),
            ]
              .map((i) => `${i.name}:${i.unique ? 'unique ' : ''}${i.columns.join(',')}`)
              .sort(),
          },
        ])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  } finally {
    await runner.release();
  }
}

/**
 * The columns of each named index in index order, read from the database itself (TypeORM's
 * PostgreSQL loader lists them in table order, and the order is what serves a sorted listing).
 */
async function indexColumnOrder(dataSource: DataSource): Promise<Record<string, string[]>> {
  if (dataSource.options.type === 'postgres') {
    const rows = (await dataSource.query(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    )) as { indexname: string; indexdef: string }[];
    return Object.fromEntries(
      rows.map((r) => [
        r.indexname,
        // The columns in parentheses after the method; a partial index's WHERE comes after them.
        /USING \w+ \(([^)]*)\)/
          .exec(r.indexdef)![1]
          .split(',')
          .map((c) => c.trim().replace(/"/g, '')),
      ]),
    );
  }
  const rows = (await dataSource.query(
    "SELECT il.name AS index_name, ii.name AS column_name FROM sqlite_master m, pragma_index_list(m.name) il, pragma_index_info(il.name) ii WHERE m.type = 'table' ORDER BY il.name, ii.seqno",
  )) as { index_name: string; column_name: string }[];
  const order: Record<string, string[]> = {};
  for (const row of rows) (order[row.index_name] ??= []).push(row.column_name);
  return order;
}

describe('PostgreSQL beside SQLite (e2e)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gets the same schema from the same migrations: tables, columns, types, keys, indexes', async () => {
    const postgres = await freshDatabase(dir);
    const databases = [`sqlite:${join(dir, 'same.sqlite')}`, postgres.url].map(
      (url) => new DataSource(dataSourceOptions(url)),
    );
    try {
      const schemas = [];
      for (const dataSource of databases) {
        await dataSource.initialize();
        await dataSource.runMigrations();
        schemas.push(await schemaOf(dataSource));
      }
      expect(Object.keys(schemas[0])).toEqual([
        'api_key',
        'asset_rate',
        'audit_event',
        'callback',
        'callback_attempt',
        'catalog_revision',
        'checkout',
        'checkout_token',
        'crypto_pair',
        'deposit',
        'deposit_address',
        'deposit_key',
        'deposit_quote',
        'merchant',
        'operator',
        'payment_session',
        'payment_session_transition',
        'write_probe',
      ]);
      expect(schemas[1]).toEqual(schemas[0]);
    } finally {
      for (const dataSource of databases) if (dataSource.isInitialized) await dataSource.destroy();
      await postgres.drop();
    }
  });

  it('runs each migration once when several processes migrate an empty database together', async () => {
    const postgres = await freshDatabase(dir);
    const sources = Array.from(
      { length: 4 },
      () => new DataSource(dataSourceOptions(postgres.url)),
    );
    try {
      await Promise.all(sources.map((s) => s.initialize()));
      await Promise.all(sources.map((s) => runMigrationsOnce(s)));
      const rows = (await sources[0].query('SELECT name FROM migrations ORDER BY id')) as {
        name: string;
      }[];
      expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await Promise.all(sources.map((s) => (s.isInitialized ? s.destroy() : undefined)));
      await postgres.drop();
    }
  });

  // TypeORM 0.3.31 attaches its error listener to a connection a microtask after the pool hands it
  // over. A new connection is handed over while pg parses the server's ReadyForQuery; a FATAL
  // message in the same chunk (pg_terminate_backend right after the connection was made) was
  // emitted in that gap with no listener, and ended the process (src/database/dialect.ts,
  // recordingPgModule). The error is emitted here where pg emits it: inside the hand-over.
  it("keeps an error listener on every connection of TypeORM's pool while the pool hands it over", async () => {
    const postgres = await freshDatabase(dir);
    const source = new DataSource(dataSourceOptions(postgres.url));
    try {
      await source.initialize();
      const pool = poolOf(source);
      if (!pool) {
        throw new Error(
          "TypeORM did not make its pool with the pg module's Pool given as its `driver` option " +
            '(src/database/dialect.ts, recordingPgModule; docs/decisions.md, "Documented APIs only")',
        );
      }
      // Two at once: the idle connection TypeORM's start left, and a new one.
      const outcomes = await Promise.all(
        [0, 1].map(
          () =>
            new Promise<string>((resolve) =>
              pool.connect((error, client, release) => {
                if (error || !client) return resolve(`not connected: ${error?.message}`);
                const fatal = Object.assign(
                  new Error('terminating connection due to administrator command'),
                  { code: '57P01', severity: 'FATAL' },
                );
                let outcome = 'survived';
                try {
                  client.emit('error', fatal);
                } catch (thrown) {
                  outcome = `thrown: ${(thrown as Error).message}`;
                }
                release(true);
                resolve(outcome);
              }),
            ),
        ),
      );
      expect(outcomes).toEqual(['survived', 'survived']);
      expect(pool.totalCount).toBe(0);
      // Both dropped; the next statement gets a new connection.
      expect(await source.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      if (source.isInitialized) await source.destroy();
      await postgres.drop();
    }
  });

  it('loads a seed file into PostgreSQL, then a re-run changes nothing; a dry run writes nothing', async () => {
    const postgres = await freshDatabase(dir);
    const config = loadConfig({
      DATABASE_URL: postgres.url,
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      LOG_LEVEL: 'silent',
    });
    const run = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await seedCommand(args, config, {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      return { code, out, err };
    };
    try {
      const dryRun = await run(['seeds/demo.json', '--dry-run']);
      expect(dryRun.code).toBe(0);
      const first = await run(['seeds/demo.json']);
      expect(first.code).toBe(0);
      expect(first.out[0]).toMatch(/\(\d+ added or changed\)/);
      const second = await run(['seeds/demo.json']);
      expect(second.code).toBe(0);
      expect(second.out[0]).toMatch(
        /crypto pairs \(0 added or changed\).*\(0 created, 0 updated, \d+ unchanged\)/,
      );
      const bad = join(dir, 'bad.json');
      writeFileSync(
        bad,
        JSON.stringify({
          paymentSessions: [{ validationKey: 'vk_x', merchantId: 'nobody', status: 'PENDING' }],
        }),
      );
      const refused = await run([bad]);
      expect(refused.code).toBe(1);
      expect(refused.err[0]).toContain('paymentSessions[0].merchantId');
    } finally {
      await postgres.drop();
    }
  });
});
