/**
 * What `npm run bench:seed` measures of one seed command: wall time, peak RSS (the kernel's
 * high-water mark, VmHWM, of the seed process), exit code, output, and when each progress line
 * came; and the whole database's contents as a checksum, to compare before and after.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import sqlite3 from 'sqlite3';

/** The tables a seed file writes, with the order that makes their rows comparable. */
const TABLES = {
  crypto_pair: 'id',
  catalog_revision: 'id',
  merchant: 'id',
  api_key: 'id',
  payment_session: 'validation_key',
  payment_session_transition: 'id',
  callback: 'id',
};

function peakRss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb * 1024 : undefined;
  } catch {
    return undefined; // the process has exited
  }
}

/**
 * Runs `node <flags> <seedScript> <args>` to its end (no terminal: progress comes as lines) and
 * measures it. VmHWM is read every 50 ms; the last reading before exit is the peak, give or take
 * what the last 50 ms added.
 */
export function measureSeed({ nodeFlags, seedScript, args, env, cwd }) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [...nodeFlags, seedScript, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let rss = 0;
    const sample = () => {
      rss = Math.max(rss, peakRss(child.pid) ?? 0);
    };
    const sampler = setInterval(sample, 50);
    const out = [];
    const err = [];
    const progressAt = [];
    const lines = (stream, into, onLine) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (text) => {
        const parts = (rest + text).split('\n');
        rest = parts.pop();
        for (const line of parts) {
          into.push(line);
          onLine?.(line);
        }
      });
    };
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
    lines(child.stdout, out);
    lines(child.stderr, err, (line) => {
      if (/ records \(/.test(line)) progressAt.push(elapsed());
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const seconds = elapsed();
      const gaps = [...progressAt, seconds].map((t, i, all) => t - (i ? all[i - 1] : 0));
      resolve({
        code,
        seconds,
        peakRssBytes: rss,
        out,
        errors: err.filter((line) => !/ records \(/.test(line)),
        progressLines: progressAt.length,
        longestSilenceSeconds: Math.max(...gaps),
      });
    });
  });
}

/** An order-free checksum of every row of every table, and the row counts. */
export async function sqliteContents(file) {
  const db = await new Promise((resolve, reject) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (e) =>
      e ? reject(e) : resolve(opened),
    );
  });
  try {
    const contents = {};
    for (const [table, order] of Object.entries(TABLES)) {
      let sum = 0n;
      let rows = 0;
      await new Promise((resolve, reject) =>
        db.each(
          `SELECT * FROM ${table} ORDER BY ${order}`,
          (error, row) => {
            if (error) return;
            rows++;
            sum += BigInt(
              `0x${createHash('md5').update(JSON.stringify(row)).digest('hex').slice(0, 15)}`,
            );
          },
          (error) => (error ? reject(error) : resolve()),
        ),
      );
      contents[table] = { rows, checksum: sum.toString(16) };
    }
    return contents;
  } finally {
    await new Promise((resolve) => db.close(() => resolve()));
  }
}

export async function postgresContents(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const contents = {};
    for (const table of Object.keys(TABLES)) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS rows, ` +
          `coalesce(sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint), 0)::text AS checksum ` +
          `FROM ${table} t`,
      );
      contents[table] = rows[0];
    }
    return contents;
  } finally {
    await client.end();
  }
}
