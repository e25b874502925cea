/**
 * PostgreSQL (and Redis) for the benchmark: throwaway servers on loopback from
 * test/support/servers.ts, and the same dataset as SQLite's: the schema and the bench merchant
 * through the service's seed script (its migrations, from dist/), the bulk rows through
 * COPY FROM STDIN in one transaction, then VACUUM (ANALYZE) and a CHECKPOINT.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';
import { insertDatasetRows, sessionsPerStatus } from './dataset.mjs';
import { registerCleanup, runToCompletion, treeCpuTimes } from './processes.mjs';

/**
 * A small dedicated database server (2 cores, a few GB), not the test defaults. The throwaway
 * cluster keeps servers.ts' fsync=off: the measured requests only read, and it shortens the load.
 */
export const POSTGRES_SETTINGS = {
  shared_buffers: '256MB',
  effective_cache_size: '1GB',
  work_mem: '4MB',
  maintenance_work_mem: '128MB',
  // Data on SSD (or in the page cache): index scans are not penalised as on spinning disks.
  random_page_cost: '1.1',
  effective_io_concurrency: 200,
  // The 1,000,000-session load writes about 1 GB of WAL: no forced checkpoint in the middle.
  max_wal_size: '4GB',
};

/** The Debian packages' servers, started on free loopback ports (see test/support/servers.ts). */
async function servers() {
  return tsImport('../../test/support/servers.ts', import.meta.url);
}

/**
 * Starts the benchmark's PostgreSQL; bench cleanup destroys it (servers.ts also kills it and
 * removes its data if this process exits without cleaning up).
 */
export async function startBenchPostgres() {
  const { startPostgres } = await servers();
  const server = await startPostgres({ settings: POSTGRES_SETTINGS });
  const unregister = registerCleanup(() => server.destroy());
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const version = (await client.query('SHOW server_version')).rows[0].server_version;
  await client.end();
  return {
    url: server.url,
    version: version.split(' ')[0],
    settings: POSTGRES_SETTINGS,
    /** CPU seconds of the postmaster and all its backends so far. */
    cpu() {
      const pid = postmasterPid(server.dataDir);
      return pid ? treeCpuTimes(pid) : undefined;
    },
    async destroy() {
      unregister();
      await server.destroy();
    },
  };
}

function postmasterPid(dataDir) {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A throwaway Redis for the rate-limit counters (--redis). */
export async function startBenchRedis() {
  const { startRedis } = await servers();
  const server = await startRedis();
  const unregister = registerCleanup(() => server.destroy());
  return {
    url: server.url,
    async destroy() {
      unregister();
      await server.destroy();
    },
  };
}

/* ------------------------------------------------------------------------------------------ */
/* COPY FROM STDIN with the pg package                                                         */

/** A value in COPY's text format. */
function copyValue(value) {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

/**
 * A `COPY … FROM STDIN` query for pg's Client: when the server asks for the data, `produce` writes
 * it through pg's connection (CopyData messages, waiting on the socket when its buffer is full),
 * then CopyDone; the query ends like any other with the server's CommandComplete.
 */
class CopyFromStdin extends pg.Query {
  constructor(text, produce, callback) {
    super({ text, callback });
    this.produce = produce;
    this.failed = false;
  }

  handleCopyInResponse(connection) {
    const send = async (text) => {
      if (this.failed) throw new Error('COPY aborted by the server');
      connection.sendCopyFromChunk(Buffer.from(text, 'utf8'));
      if (connection.stream.writableNeedDrain) await once(connection.stream, 'drain');
    };
    this.produce(send).then(
      () => {
        if (!this.failed) connection.endCopyFrom();
      },
      (error) => {
        if (!this.failed) connection.sendCopyFail(String(error?.message ?? error));
      },
    );
  }

  handleError(error, connection) {
    this.failed = true;
    super.handleError(error, connection);
  }
}

/** Rows `rowOf(0…count-1)` into `table` by COPY, sent in chunks of about 1 MB. */
async function copyRows(client, { table, columns, count, rowOf, onProgress }) {
  const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN`;
  const produce = async (send) => {
    let lines = [];
    let size = 0;
    for (let i = 0; i < count; i++) {
      const line = `${rowOf(i).map(copyValue).join('\t')}\n`;
      lines.push(line);
      size += line.length;
      if (size >= 1 << 20) {
        await send(lines.join(''));
        lines = [];
        size = 0;
        onProgress?.(i + 1);
      }
    }
    if (lines.length > 0) await send(lines.join(''));
    onProgress?.(count);
  };
  const result = await new Promise((resolve, reject) => {
    client.query(
      new CopyFromStdin(sql, produce, (error, res) => (error ? reject(error) : resolve(res))),
    );
  });
  if (result.rowCount !== count) {
    throw new Error(`COPY ${table}: ${result.rowCount} rows, expected ${count}`);
  }
}

/**
 * The benchmark dataset on the (empty) database at `url`: schema and merchant through
 * `node dist/seed.js <seedFile>` (the service's migrations; `env`: extra variables), then the same catalog pairs, sessions
 * and transitions as the SQLite dataset. Times each step.
 */
export async function createPostgresDataset({
  root,
  url,
  seedScript,
  seedFile,
  sessions,
  env = {},
  log,
}) {
  const started = Date.now();
  await runToCompletion(process.execPath, [seedScript, seedFile], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
    label: 'seed on PostgreSQL (migrations + bench merchant)',
    timeoutMs: 120_000,
  });
  const seeded = Date.now();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await insertDatasetRows({
      label: 'PostgreSQL',
      sessions,
      write: (spec) => copyRows(client, spec),
      run: (sql) => client.query(sql),
    });
    await client.query('COMMIT');
    const loaded = Date.now();
    // VACUUM, not only ANALYZE: it sets the hint bits and the visibility map now, and leaves
    // autovacuum nothing to do after a million inserts, so neither runs during a measurement.
    // The CHECKPOINT flushes the load's dirty pages before the first measurement for the same reason.
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
    const analysed = Date.now();

    const { rows } = await client.query(
      `SELECT (SELECT COUNT(*) FROM crypto_pair)::int AS pairs,
              (SELECT COUNT(*) FROM crypto_pair WHERE enabled)::int AS "enabledPairs",
              (SELECT COUNT(DISTINCT country_code) FROM crypto_pair)::int AS countries,
              (SELECT COUNT(*) FROM payment_session)::int AS sessions,
              (SELECT COUNT(*) FROM payment_session_transition)::int AS transitions,
              pg_database_size(current_database())::bigint AS bytes`,
    );
    const { bytes, ...counts } = rows[0];
    if (counts.sessions !== sessions || counts.pairs !== 5000) {
      throw new Error(`PostgreSQL dataset check failed: ${JSON.stringify(counts)}`);
    }
    const seconds = (t) => Math.round(t / 100) / 10;
    const summary = {
      ...counts,
      sessionsPerStatus: sessionsPerStatus(sessions),
      loadSeconds: seconds(analysed - started),
      seedSeconds: seconds(seeded - started),
      copySeconds: seconds(loaded - seeded),
      vacuumAnalyzeSeconds: seconds(analysed - loaded),
      databaseMb: Math.round(Number(bytes) / 2 ** 20),
    };
    log(
      `PostgreSQL dataset: ${counts.pairs} pairs (${counts.enabledPairs} enabled) over ` +
        `${counts.countries} countries, ${counts.sessions.toLocaleString('en')} sessions, ` +
        `${counts.transitions.toLocaleString('en')} transitions in ${summary.loadSeconds} s ` +
        `(schema + merchant ${summary.seedSeconds} s, COPY ${summary.copySeconds} s, ` +
        `VACUUM ANALYZE + CHECKPOINT ${summary.vacuumAnalyzeSeconds} s; ${summary.databaseMb} MB)`,
    );
    return { url, summary };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}
