/**
 * `npm run bench`: the service's benchmark. Builds, generates a dataset into a fresh SQLite file
 * (and, with --database postgres, the same one into a throwaway PostgreSQL), starts the production
 * build per HTTP platform and database, captures each scenario's real answers, starts two
 * baselines replaying those bytes (raw node:http; bare Nest on the same platform), measures them
 * all with autocannon on 127.0.0.1, prints a Markdown report and writes bench/results.json.
 * With --compare <git-ref>, the ref's build is measured too, alternately with this one.
 * Options: node bench/run.mjs --help
 */
import { createRequire } from 'node:module';
import {
  BENCH,
  ROOT,
  loadAverage,
  machine,
  prepareBuild,
  productionNodeFlags,
  workingTreeState,
} from './lib/build.mjs';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { captureScenarios, compareAnswers, compareCaptures, toReplay } from './lib/capture.mjs';
import { prepareRefBuild } from './lib/compare.mjs';
import { createDataset, newApiKey, writeSeedFile } from './lib/dataset.mjs';
import { STATUS_PREFIX } from './lib/keys.mjs';
import { stopLoad } from './lib/loadgen.mjs';
import { combine, formatMeasurement, measure } from './lib/measure.mjs';
import { USAGE, UsageError, optionsOrUsage, parseOptions } from './lib/options.mjs';
import { createPostgresDataset, startBenchPostgres, startBenchRedis } from './lib/postgres.mjs';
import {
  callerEnv,
  cleaningUpAlready,
  cleanup,
  freePort,
  installCleanupHandlers,
  spawnTracked,
  stopChild,
  waitForHttp,
  waitForLine,
} from './lib/processes.mjs';
import { formatProfile, summariseProfile } from './lib/profile.mjs';
import {
  DATABASE_LABELS,
  TARGETS,
  compareRows,
  evaluateTargets,
  floorOf,
  formatReport,
  largeDatasetComparison,
} from './lib/report.mjs';
import { addRun, latestRuns, readResults, writeResults } from './lib/results.mjs';
import { LOOKUP_MIX, REASK_BLOCK_KEYS, defineScenarios } from './lib/scenarios.mjs';

const RESULTS_FILE = join(BENCH, 'results.json');
/** Route patterns of the bare Nest baseline: the service's own two routes. */
const NEST_ROUTES = [
  'api/crypto-currency-protocol-processors',
  'api/gateway/payment-status/:validationKey',
];
/** Highest value src/config/app-config.ts accepts for the two rate limits. */
const RATE_LIMIT_MAX = '10000000';

const log = (line = '') => process.stderr.write(`${line}\n`);

/* ------------------------------------------------------------------------------------------ */
/* Servers                                                                                     */

/**
 * `node dist/main.js` of `build` (this working tree's, or the --compare ref's) on `database`.
 * Both builds get the same environment; only the ref's service is named `<database>:ref`.
 */
async function startService(platform, database, build, context, { profileDir } = {}) {
  const { options } = context;
  const port = await freePort();
  const env = callerEnv();
  Object.assign(env, context.serviceEnv, {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: context.datasets[database].url,
    AUTH_MODE: 'api-key',
    LOG_LEVEL: options.logLevel,
    RATE_LIMIT_PER_MINUTE: RATE_LIMIT_MAX,
    RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: RATE_LIMIT_MAX,
    HTTP_PLATFORM: platform,
    // The seed script migrated the database; no service of the run changes its schema.
    MIGRATIONS_RUN: 'false',
  });
  if (database === 'postgres' && options.poolSize)
    env.DATABASE_POOL_SIZE = String(options.poolSize);
  const name = build.isRef ? `${database}:ref` : database;
  if (context.redisUrl) {
    env.REDIS_URL = context.redisUrl;
    // One Redis for every service of the run: each counts on its own keys.
    env.REDIS_KEY_PREFIX = `bench-${platform}-${name}:`;
  }
  const args = [];
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    env.BENCH_PROFILE_DIR = profileDir;
    args.push('--import', pathToFileURL(join(BENCH, 'lib', 'profiler-preload.mjs')).href);
  }
  args.push(...build.nodeFlags, join(build.distDir, 'main.js'));
  const which = build.isRef ? `, ref ${build.ref}` : '';
  const child = spawnTracked(process.execPath, args, {
    cwd: build.root,
    env,
    label: `service (${platform}, ${DATABASE_LABELS[database]}${which})`,
    logFile: join(context.dir, `service-${platform}-${name.replace(':', '-')}.log`),
  });
  await waitForHttp(child, port, '/health/ready', { timeoutMs: 60_000 });
  return { name, database, isRef: Boolean(build.isRef), child, port, profileDir };
}

async function startBaseline(kind, platform, specFile) {
  const port = await freePort();
  const script = join(BENCH, 'baselines', kind === 'raw' ? 'raw-server.mjs' : 'nest-server.mjs');
  const child = spawnTracked(process.execPath, [script, specFile, String(port)], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    label: kind === 'raw' ? 'raw node:http baseline' : `bare Nest + ${platform} baseline`,
  });
  await waitForLine(child, /^LISTENING /, 30_000);
  return { name: kind, child, port };
}

/** Starts (or stops and writes) the CPU profile of a service started with a profileDir. */
function toggleProfiler(service) {
  service.child.kill('SIGWINCH');
}

/** Waits for the service's next profile, keeps it in bench/profiles/ and summarises it. */
async function collectProfile(service, platform, scenario) {
  const file = join(service.profileDir, `${service.profiles ?? 0}.cpuprofile`);
  service.profiles = (service.profiles ?? 0) + 1;
  const deadline = Date.now() + 30_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline || service.child.exitInfo) return { error: 'no profile written' };
    await new Promise((r) => setTimeout(r, 100));
  }
  const target = join(
    BENCH,
    'profiles',
    `${platform}-${service.database}-${scenario.id}.cpuprofile`,
  );
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  return { file: relative(ROOT, target), ...summariseProfile(target) };
}

/* ------------------------------------------------------------------------------------------ */
/* One platform                                                                                */

/** The per-database result of one platform, built from the measurements of its services. */
function platformResult(service, ref, scenarios, runs, captured) {
  const results = scenarios.map((s) => {
    const r = runs.get(s.id);
    const svc = combine(r[service.name]);
    const rawM = combine(r.raw);
    const nestM = combine(r.nest);
    const refM = ref ? combine(r[ref.name]) : undefined;
    return {
      id: s.id,
      label: s.label,
      path: s.paths.length > 1 ? `${STATUS_PREFIX}<${s.paths.length} keys>` : s.paths[0],
      expectedStatus: s.mixed ? 'mix' : s.expect,
      extra: Boolean(s.extra),
      responseBytes: captured.get(s.replays[0].id).body.length,
      service: svc,
      ...(refM ? { ref: refM } : {}),
      raw: rawM,
      nest: nestM,
      ...floorOf(svc, rawM, nestM),
    };
  });
  return {
    status: 'measured',
    peakRssMb: Math.max(...results.map((s) => s.service?.peakRssMb ?? 0)),
    scenarios: results,
  };
}

/**
 * The order of one platform's measurements: without --compare, every repeat goes through every
 * scenario and server in turn; with it, each scenario measures this build and the ref
 * alternately, `repeat` times, then the baselines once.
 */
function* schedule(scenarios, services, refs, baselines, options) {
  if (refs.length === 0) {
    for (let repeat = 0; repeat < options.repeat; repeat++) {
      for (const scenario of scenarios) {
        for (const target of [...services, ...baselines]) yield { scenario, target, repeat };
      }
    }
    return;
  }
  for (const scenario of scenarios) {
    for (let repeat = 0; repeat < options.repeat; repeat++) {
      for (const service of services) {
        yield { scenario, target: service, repeat };
        const ref = refs.find((r) => r.database === service.database);
        if (ref) yield { scenario, target: ref, repeat };
      }
    }
    for (const target of baselines) yield { scenario, target, repeat: 0, once: true };
  }
}

/**
 * One platform: the service on each database of the run (and the ref's, with --compare), all
 * started first, then the baselines. Returns a result per database.
 */
async function benchPlatform(platform, scenarios, context) {
  const { options, dir, apiKey, builds } = context;
  const results = {};
  const services = [];
  const refs = [];
  const servers = [];
  const refNotes = {};
  try {
    for (const database of options.databases) {
      const label = DATABASE_LABELS[database];
      const profileDir = options.profile
        ? join(dir, `profiles-${platform}-${database}`)
        : undefined;
      log(
        `\n[${platform}] starting the service on ${label} (node dist/main.js, HTTP_PLATFORM=${platform})…`,
      );
      try {
        services.push(await startService(platform, database, builds.this, context, { profileDir }));
      } catch (error) {
        log(`[${platform}] NOT TESTABLE on ${label}: ${error.message}`);
        results[database] = { status: 'not testable', error: firstLine(error.message) };
        continue;
      }
      if (builds.ref) {
        log(`[${platform}] starting the ref's service (${builds.ref.ref}) on ${label}…`);
        try {
          refs.push(await startService(platform, database, builds.ref, context));
        } catch (error) {
          log(`[${platform}] the ref does not start on ${label}: ${error.message}`);
          refNotes[database] = { refStatus: 'failed', refError: firstLine(error.message) };
        }
      }
    }
    const captured = new Map();
    for (const service of [...services, ...refs]) {
      try {
        captured.set(service.name, await captureScenarios(service, scenarios, apiKey));
      } catch (error) {
        const label = `${DATABASE_LABELS[service.database]}${service.isRef ? ' (ref)' : ''}`;
        log(`[${platform}] FAILED on ${label}: ${error.message}`);
        if (service.isRef) {
          refNotes[service.database] = { refStatus: 'failed', refError: firstLine(error.message) };
          refs.splice(refs.indexOf(service), 1);
        } else {
          results[service.database] = { status: 'failed', error: firstLine(error.message) };
          services.splice(services.indexOf(service), 1);
          const ref = refs.find((r) => r.database === service.database);
          if (ref) refs.splice(refs.indexOf(ref), 1);
        }
        await stopChild(service.child);
      }
    }
    if (services.length === 0) return results;

    // The baselines replay the first database's answers; the others are compared with them.
    const reference = services[0].database;
    const referenceCaptured = captured.get(reference);
    const databaseDifferences = {};
    for (const service of services.slice(1)) {
      const found = compareCaptures(
        scenarios,
        referenceCaptured,
        captured.get(service.database),
        DATABASE_LABELS[reference],
      );
      databaseDifferences[service.database] = found;
      const label = DATABASE_LABELS[service.database];
      log(
        found.length > 0
          ? `[${platform}] WARNING: on ${label} the service answers differently from ${DATABASE_LABELS[reference]}:\n  ${found.join('\n  ')}`
          : `[${platform}] ${label} and ${DATABASE_LABELS[reference]}: byte-identical answers`,
      );
    }
    for (const ref of refs) {
      const found = compareCaptures(
        scenarios,
        captured.get(ref.database),
        captured.get(ref.name),
        'this build',
      );
      refNotes[ref.database] = { refDifferences: found };
      log(
        found.length > 0
          ? `[${platform}] the ref answers differently on ${DATABASE_LABELS[ref.database]}:\n  ${found.join('\n  ')}`
          : `[${platform}] the ref answers byte-identical bodies with the same headers on ${DATABASE_LABELS[ref.database]}`,
      );
    }
    const spec = {
      platform,
      routes: NEST_ROUTES,
      statusPrefix: STATUS_PREFIX,
      sessions: options.sessions,
      responses: scenarios.flatMap((s) =>
        s.replays.map((r) => toReplay(r, referenceCaptured.get(r.id))),
      ),
    };
    const specFile = join(dir, `responses-${platform}.json`);
    writeFileSync(specFile, JSON.stringify(spec, null, 1));
    for (const s of scenarios) {
      for (const replay of s.replays) {
        const r = referenceCaptured.get(replay.id);
        log(
          `  ${replay.id}: ${r.status}, ${r.body.length} bytes, ${r.rawHeaders.length / 2} headers`,
        );
      }
    }
    const raw = await startBaseline('raw', platform, specFile);
    const nest = await startBaseline('nest', platform, specFile);
    servers.push(raw, nest);
    const differencesFound = [
      ...(await compareAnswers(raw, scenarios, referenceCaptured, apiKey, 'service')),
      ...(await compareAnswers(nest, scenarios, referenceCaptured, apiKey, 'service')),
    ];
    log(
      differencesFound.length > 0
        ? `[${platform}] WARNING: baselines differ from the service:\n  ${differencesFound.join('\n  ')}`
        : `[${platform}] baselines answer byte-identical bodies and the same headers`,
    );

    const runs = new Map(
      scenarios.map((s) => [
        s.id,
        Object.fromEntries([...services, ...refs, raw, nest].map((t) => [t.name, []])),
      ]),
    );
    const profiles = Object.fromEntries(services.map((s) => [s.database, {}]));
    const live = new Set([...services, ...refs, raw, nest]);
    for (const { scenario, target, repeat, once } of schedule(
      scenarios,
      services,
      refs,
      [raw, nest],
      options,
    )) {
      if (!live.has(target)) continue;
      const round = options.repeat > 1 && !once ? ` (run ${repeat + 1}/${options.repeat})` : '';
      process.stderr.write(
        `  [${platform}] ${scenario.id.padEnd(22)} ${target.name.padEnd(12)}${round} `,
      );
      let m;
      try {
        m = await measure(target, scenario, context, { toggleProfiler, log });
      } catch (error) {
        // A service that fails on one database leaves the other measurable; a baseline does not.
        if (!target.database || (services.length === 1 && !target.isRef)) throw error;
        log(`FAILED: ${error.message}`);
        if (target.isRef) {
          refNotes[target.database] = { refStatus: 'failed', refError: firstLine(error.message) };
        } else {
          results[target.database] = { status: 'failed', error: firstLine(error.message) };
        }
        live.delete(target);
        await stopChild(target.child);
        continue;
      }
      runs.get(scenario.id)[target.name].push(m);
      log(formatMeasurement(m));
      if (target.profileDir) {
        const summary = await collectProfile(target, platform, scenario);
        profiles[target.database][scenario.id] = summary;
        if (summary.areas) log(formatProfile(summary));
      }
    }
    for (const service of services) {
      if (!live.has(service)) continue;
      const ref = refs.find((r) => r.database === service.database && live.has(r));
      results[service.database] = {
        ...platformResult(service, ref, scenarios, runs, captured.get(service.name)),
        baselineDifferences: differencesFound,
        ...(service.database !== reference
          ? {
              databaseReference: reference,
              databaseDifferences: databaseDifferences[service.database],
            }
          : {}),
        ...(builds.ref ? (refNotes[service.database] ?? {}) : {}),
        ...(options.profile ? { profiles: profiles[service.database] } : {}),
      };
    }
    return results;
  } catch (error) {
    log(`[${platform}] FAILED: ${error.message}`);
    for (const database of options.databases) {
      if (results[database]?.status !== 'not testable') {
        results[database] = { status: 'failed', error: firstLine(error.message) };
      }
    }
    return results;
  } finally {
    await Promise.all([...services, ...refs, ...servers].map((s) => stopChild(s.child)));
  }
}

const firstLine = (text) => text.split('\n')[0];

/** With --compare, one verdict per platform and database: every scenario within the limits. */
function compareVerdicts(run) {
  const verdicts = [];
  for (const [database, { platforms }] of Object.entries(run.databases)) {
    for (const [platform, result] of Object.entries(platforms)) {
      const target = `${platform}, ${DATABASE_LABELS[database]}: this build ≥ ${Math.round(TARGETS.compareRps * 100)}% of the ref's req/s and ≤ ${Math.round(TARGETS.compareCpu * 100)}% of its CPU µs/req, every scenario`;
      if (result.status !== 'measured' || result.refStatus === 'failed') {
        const why = result.status !== 'measured' ? result.error : result.refError;
        verdicts.push({ target, platform, database, verdict: 'NOT TESTABLE', detail: why });
        continue;
      }
      const rows = compareRows(result);
      const failed = rows.filter((r) => !r.ok);
      verdicts.push({
        target,
        platform,
        database,
        verdict: rows.length > 0 && failed.length === 0 ? 'PASS' : 'FAIL',
        detail: (failed.length ? failed : rows)
          .map(
            (r) =>
              `${r.id} ${Math.round(r.rpsRatio * 100)}% req/s, ${r.cpuRatio === undefined ? '?' : Math.round(r.cpuRatio * 100)}% CPU`,
          )
          .join('; '),
      });
    }
  }
  return verdicts;
}

/* ------------------------------------------------------------------------------------------ */

async function main() {
  const options = optionsOrUsage(parseOptions, USAGE, log);
  if (!options) return;
  if (options.sessions < 1000) throw new UsageError('--sessions needs at least 1000');
  for (const note of options.notes) log(`note: ${note}`);
  let scenarios = defineScenarios(options.sessions);
  if (options.scenarios) {
    const unknown = options.scenarios.filter((id) => !scenarios.some((s) => s.id === id));
    if (unknown.length) {
      throw new UsageError(
        `unknown scenario ${unknown.join(', ')} (known: ${scenarios.map((s) => s.id).join(', ')})`,
      );
    }
    scenarios = scenarios.filter((s) => options.scenarios.includes(s.id));
  }
  installCleanupHandlers(log);

  const started = Date.now();
  const machineAtStart = machine();
  const { dir, distDir } = await prepareBuild({
    root: ROOT,
    skipBuild: options.skipBuild,
    keep: options.keep,
    prefix: 'gateway-bench-',
    log,
  });
  const builds = {
    this: { root: ROOT, distDir, nodeFlags: productionNodeFlags(ROOT) },
  };
  if (options.compare) {
    const ref = await prepareRefBuild({ root: ROOT, ref: options.compare, log });
    builds.ref = { ...ref, isRef: true };
    if (ref.migrationDifferences.length > 0) {
      log(
        `--compare: WARNING: the migrations differ from ${options.compare} (${ref.migrationDifferences.join('; ')}); ` +
          "the ref's service reads the database this build migrated",
      );
    }
  }
  const { databases } = options;
  const apiKey = newApiKey();
  const seedFile = writeSeedFile(dir, apiKey);
  // The working tree's seed script and migrations make the dataset, for the ref's build too.
  const seedScript = join(distDir, 'seed.js');
  // Required in production and on PostgreSQL; the benchmark makes no callbacks, any keys will do.
  const serviceEnv = {
    CALLBACK_SECRET_KEY: randomBytes(32).toString('base64'),
    AUDIT_KEY: randomBytes(32).toString('base64'),
  };
  const load = {
    root: ROOT,
    seedScript,
    seedFile,
    sessions: options.sessions,
    env: serviceEnv,
    log,
  };
  const datasets = {};
  if (databases.includes('sqlite')) {
    log(
      `generating the SQLite dataset in ${dir} (${options.sessions.toLocaleString('en-US')} sessions)…`,
    );
    datasets.sqlite = await createDataset({ ...load, dir });
  }
  let postgres;
  if (databases.includes('postgres')) {
    log('starting PostgreSQL (test/support/servers.ts)…');
    postgres = await startBenchPostgres();
    log(
      `PostgreSQL ${postgres.version} on ${postgres.url}; loading the same dataset ` +
        `(${options.sessions.toLocaleString('en-US')} sessions)…`,
    );
    datasets.postgres = await createPostgresDataset({ ...load, url: postgres.url });
  }
  let redis;
  if (options.redis) {
    redis = await startBenchRedis();
    log(`Redis on ${redis.url} for the rate-limit counters of every service`);
  }
  const distinct = scenarios.find((s) => s.mixed);
  if (distinct) {
    const { keys, order } = distinct.list;
    log(
      `status-distinct: ${keys.toLocaleString('en-US')} distinct keys, a list of ` +
        `${order.length.toLocaleString('en-US')} requests`,
    );
  }

  const perScenario = options.compare
    ? databases.length * 2 * options.repeat + 2
    : (databases.length + 2) * options.repeat;
  const seconds = scenarios.length * perScenario * (options.warmup + options.duration);
  log(
    `${scenarios.length} scenarios × ${perScenario} measurements × ${options.warmup + options.duration} s on ` +
      `${options.platforms.join(' and ')}: about ${Math.ceil((seconds * options.platforms.length) / 60)} min`,
  );

  const context = {
    options,
    datasets,
    apiKey,
    serviceEnv,
    builds,
    dir,
    postgres,
    redisUrl: redis?.url,
  };
  const byDatabase = Object.fromEntries(
    databases.map((db) => [db, { dataset: datasets[db].summary, platforms: {} }]),
  );
  for (const platform of options.platforms) {
    const results = await benchPlatform(platform, scenarios, context);
    for (const db of databases) byDatabase[db].platforms[platform] = results[db];
  }

  const require = createRequire(import.meta.url);
  const outFile = options.out ? resolve(options.out) : options.quick ? null : RESULTS_FILE;
  const previous = readResults(outFile ?? RESULTS_FILE);
  const state = workingTreeState(ROOT);
  const run = {
    date: new Date().toISOString(),
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    commit: state.commit,
    dirty: state.dirty,
    machine: machineAtStart,
    loadAverageAtEnd: loadAverage(),
    node: process.version,
    nodeFlags: builds.this.nodeFlags,
    autocannon: require('autocannon/package.json').version,
    ...(postgres
      ? {
          postgres: {
            version: postgres.version,
            settings: postgres.settings,
            poolSize: options.poolSize ?? 10,
          },
        }
      : {}),
    options: {
      platforms: options.platforms,
      databases,
      duration: options.duration,
      warmup: options.warmup,
      connections: options.connections,
      sessions: options.sessions,
      repeat: options.repeat,
      logLevel: options.logLevel,
      idleWait: options.idleWait,
      quick: options.quick,
      profile: options.profile,
      redis: options.redis,
      compare: options.compare,
      scenarios: scenarios.map((s) => s.id),
      rateLimitPerMinute: Number(RATE_LIMIT_MAX),
    },
    ...(distinct
      ? {
          distinct: {
            keys: distinct.list.keys,
            requests: distinct.list.order.length,
            mix: distinct.list.share,
            plannedMix: LOOKUP_MIX,
            blockKeys: REASK_BLOCK_KEYS,
          },
        }
      : {}),
    ...(builds.ref
      ? {
          compare: {
            ref: builds.ref.ref,
            commit: builds.ref.commit,
            modules: builds.ref.modules,
            nodeFlags: builds.ref.nodeFlags,
            migrationDifferences: builds.ref.migrationDifferences,
          },
        }
      : {}),
    databases: byDatabase,
    elapsedSeconds: Math.round((Date.now() - started) / 1000),
  };
  const verdicts = [];
  for (const db of databases) {
    const view = { options: run.options, platforms: byDatabase[db].platforms };
    const reference =
      options.sessions >= TARGETS.largeDatasetSessions
        ? latestRuns(previous, db, TARGETS.referenceSessions)
        : undefined;
    verdicts.push(...evaluateTargets(view, reference, { database: db }));
    const measured = Object.fromEntries(
      Object.entries(view.platforms).filter(([, p]) => p?.status === 'measured'),
    );
    const comparisons = reference ? largeDatasetComparison({ platforms: measured }, reference) : [];
    if (comparisons.length) byDatabase[db].largeDataset = comparisons;
  }
  if (builds.ref) verdicts.push(...compareVerdicts(run));
  run.targets = verdicts;
  const report = formatReport(run, verdicts);

  process.stdout.write(`\n${report}\n`);
  if (outFile) {
    const complete = !options.quick && !options.profile && !options.scenarios && !options.compare;
    writeResults(outFile, addRun(previous, run, { complete }));
    log(`\nresults written to ${relative(process.cwd(), outFile) || outFile}`);
  } else {
    log('\nquick run: results not written (give --out <file> to keep them)');
  }
  if (options.keep) log(`temp dir kept: ${dir}`);
  const all = databases.flatMap((db) => Object.values(byDatabase[db].platforms));
  if (all.some((p) => p?.status === 'failed')) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  stopLoad();
  // After Ctrl-C the children are stopped under the run: what fails then is not news.
  if (cleaningUpAlready()) log('\nbenchmark interrupted');
  else log(`\nbenchmark failed: ${error instanceof UsageError ? error.message : error.stack}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await cleanup();
}
