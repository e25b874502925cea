/**
 * `npm run bench:seed`: seeding at scale. Writes a seed file of 1,000,000 payment sessions (every
 * status shape in turn, SUCCESSFUL ones with a full payment response) and 5,000 catalog pairs, and
 * the same with other keys and an invalid last record; then, on SQLite and on a throwaway
 * PostgreSQL (test/support/servers.ts, the benchmark's settings), runs the production build's seed
 * command as `npm run seed` runs it (its Node flags):
 *
 *   1. --dry-run of the file on an empty database;
 *   2. the real run;
 *   3. the same file again (everything unchanged);
 *   4. the invalid file on the loaded database, which must be refused naming its last record and
 *      leave every row as it was (checked with a checksum of every table before and after).
 *
 * Prints wall time, peak RSS and the longest silence between progress lines of each; writes
 * bench/seed-results.json. With --lock, then runs the invalid file once more beside the running
 * service (dist/main.js) and times an operator write and a status lookup every 250 ms meanwhile.
 * Options: --sessions N, --pairs N, --database sqlite|postgres|both, --repeat N, --lock,
 * --skip-build, --keep.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { BENCH, ROOT, machine, prepareBuild } from './lib/build.mjs';
import { startBenchPostgres } from './lib/postgres.mjs';
import { cleanup, installCleanupHandlers } from './lib/processes.mjs';
import { session, writeSeedFile } from './lib/seed-files.mjs';
import { probeWhileSeeding } from './lib/seed-lock-probe.mjs';
import { measureSeed, postgresContents, sqliteContents } from './lib/seed-measure.mjs';

const log = (line) => process.stderr.write(`${line}\n`);

function options(argv) {
  const given = { sessions: 1_000_000, pairs: 5000, database: 'both', repeat: 1 };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=');
    const value = () => inline ?? argv[++i];
    if (name === '--sessions') given.sessions = Number(value());
    else if (name === '--pairs') given.pairs = Number(value());
    else if (name === '--database') given.database = value();
    else if (name === '--repeat') given.repeat = Number(value());
    else if (name === '--skip-build') given.skipBuild = true;
    else if (name === '--lock') given.lock = true;
    else if (name === '--keep') given.keep = true;
    else throw new Error(`unknown option ${argv[i]} (see the head of bench/seed.mjs)`);
  }
  if (!['sqlite', 'postgres', 'both'].includes(given.database)) {
    throw new Error('--database is sqlite, postgres or both');
  }
  return given;
}

/** The Node flags `npm run seed` gives the seed script. */
function seedNodeFlags() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return pkg.scripts.seed
    .split('&&')
    .at(-1)
    .trim()
    .split(/\s+/)
    .filter((a) => a.startsWith('--'));
}

const mb = (bytes) => Math.round(bytes / 2 ** 20);

async function main() {
  const opts = options(process.argv.slice(2));
  installCleanupHandlers(log);
  const { dir, distDir } = await prepareBuild({
    root: ROOT,
    skipBuild: opts.skipBuild,
    keep: opts.keep,
    prefix: 'gateway-bench-seed-',
    log,
  });
  const seedScript = join(distDir, 'seed.js');
  const nodeFlags = seedNodeFlags();
  const valid = join(dir, 'sessions.json');
  const invalid = join(dir, 'sessions-invalid.json');
  log(`writing ${opts.sessions.toLocaleString('en-US')} sessions and ${opts.pairs} pairs…`);
  await writeSeedFile(valid, opts);
  const badPath = await writeSeedFile(invalid, { ...opts, invalid: true });

  const postgres = opts.database === 'sqlite' ? undefined : await startBenchPostgres();
  const callbackSecretKey = randomBytes(32).toString('base64');
  const auditKey = randomBytes(32).toString('base64');
  const runs = [];
  try {
    for (let round = 1; round <= opts.repeat; round++) {
      for (const database of opts.database === 'both' ? ['sqlite', 'postgres'] : [opts.database]) {
        const target =
          database === 'sqlite'
            ? sqliteTarget(join(dir, `round-${round}.sqlite`))
            : await postgresTarget(postgres.url, `seed_round_${round}`);
        const env = {
          ...process.env,
          DATABASE_URL: target.url,
          CALLBACK_SECRET_KEY: callbackSecretKey,
          AUDIT_KEY: auditKey,
          LOG_LEVEL: 'warn',
        };
        const seed = (args) => measureSeed({ nodeFlags, seedScript, args, env, cwd: dir });
        const run = { round, database, steps: {} };
        log(`round ${round}, ${database}: dry run…`);
        run.steps.dryRun = await seed([valid, '--dry-run']);
        log(`round ${round}, ${database}: real run…`);
        run.steps.realRun = await seed([valid]);
        log(`round ${round}, ${database}: the same file again…`);
        run.steps.again = await seed([valid]);
        const before = await target.contents();
        log(`round ${round}, ${database}: the invalid file…`);
        run.steps.invalid = await seed([invalid]);
        const after = await target.contents();
        run.invalidChangedNothing = JSON.stringify(before) === JSON.stringify(after);
        run.invalidNamedItsRecord = run.steps.invalid.errors.some((l) => l.includes(`${badPath}:`));
        run.rows = after;
        run.loadAverage = os.loadavg().map((l) => Number(l.toFixed(2)));
        if (opts.lock && round === 1) {
          log(`round ${round}, ${database}: the invalid file beside the running service…`);
          run.beside = await probeWhileSeeding({
            root: ROOT,
            distDir,
            env,
            existingKey: session(0).validationKey,
            seed: () => seed([invalid]),
          });
        }
        runs.push(run);
        log(summaryLine(run));
      }
    }
  } finally {
    await postgres?.destroy();
  }
  const result = { at: new Date().toISOString(), machine: machine(), nodeFlags, ...opts, runs };
  writeFileSync(join(BENCH, 'seed-results.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(report(result));
}

function sqliteTarget(file) {
  return { url: `sqlite:${file}`, contents: () => sqliteContents(file) };
}

async function postgresTarget(serverUrl, name) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), contents: () => postgresContents(url.toString()) };
}

function summaryLine(run) {
  const step = (s) => `${s.seconds.toFixed(1)} s, ${mb(s.peakRssBytes)} MB, exit ${s.code}`;
  return (
    `  dry run ${step(run.steps.dryRun)}; real run ${step(run.steps.realRun)}; ` +
    `again ${step(run.steps.again)}; invalid ${step(run.steps.invalid)}, ` +
    `changed nothing: ${run.invalidChangedNothing}`
  );
}

function report({ at, machine: m, nodeFlags, sessions, pairs, runs }) {
  const rows = [];
  for (const run of runs) {
    for (const [name, s] of Object.entries(run.steps)) {
      rows.push(
        `| ${run.round} | ${run.database} | ${name} | ${s.seconds.toFixed(1)} | ${mb(s.peakRssBytes)} | ` +
          `${s.code} | ${s.progressLines} | ${s.longestSilenceSeconds.toFixed(1)} | ${lastLine(s)} |`,
      );
    }
    if (run.beside) {
      const { seed, writes, reads } = run.beside;
      rows.push(
        `| ${run.round} | ${run.database} | invalid file beside the service | ${seed.seconds.toFixed(1)} | ${mb(seed.peakRssBytes)} | ${seed.code} | | | ` +
          `service meanwhile: writes ${JSON.stringify(writes.byStatus)} median ${writes.medianMs} ms max ${writes.maxMs} ms; ` +
          `lookups ${JSON.stringify(reads.byStatus)} median ${reads.medianMs} ms max ${reads.maxMs} ms |`,
      );
    }
    rows.push(
      `| ${run.round} | ${run.database} | invalid file: every table as before | ${run.invalidChangedNothing ? 'yes' : '**NO**'} | | | | | named its last record: ${run.invalidNamedItsRecord ? 'yes' : '**NO**'} |`,
    );
  }
  return [
    `## Seeding ${sessions.toLocaleString('en-US')} sessions and ${pairs} pairs (${at})`,
    '',
    `${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB; node ${process.version} ${nodeFlags.join(' ')}`,
    '',
    '| round | database | step | wall s | peak RSS MB | exit | progress lines | longest silence s | last line |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** The step's summary or last error line, without the file's path. */
function lastLine(step) {
  const line = step.out[0] ?? step.errors.at(-1) ?? '';
  return line.slice(line.indexOf(': ') + 2);
}

main()
  .catch((error) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  })
  .finally(() => cleanup());
