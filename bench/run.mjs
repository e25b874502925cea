/**
 * `npm run bench`: the service's benchmark. Builds, generates a dataset into a fresh SQLite file
 * (and, with --database postgres, the same one into a throwaway PostgreSQL), starts the production
 * build per HTTP platform and database, captures each scenario's real response, starts two
 * baselines replaying those bytes (raw node:http; bare Nest on the same platform), measures them
 * all with autocannon on 127.0.0.1, prints a Markdown report and writes bench/results.json.
 * Options: node bench/run.mjs --help
 */
import { createRequire } from 'node:module';
import { BENCH, ROOT, machine, prepareBuild, productionNodeFlags } from './lib/build.mjs';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  FILTER_COUNTRY,
  STATUS_PREFIX,
  createDataset,
  indexWithStatus,
  newApiKey,
  validationKeyOf,
  writeSeedFile,
} from './lib/dataset.mjs';
import { runLoad, stopLoad, summarise } from './lib/loadgen.mjs';
import { USAGE, UsageError, optionsOrUsage, parseOptions } from './lib/options.mjs';
import { createPostgresDataset, startBenchPostgres, startBenchRedis } from './lib/postgres.mjs';
import {
  callerEnv,
  cleanup,
  cpuTimes,
  freePort,
  httpGet,
  installCleanupHandlers,
  machineCpu,
  spawnTracked,
  startRssSampler,
  stopChild,
  waitForHttp,
  waitForLine,
} from './lib/processes.mjs';
import { formatProfile, summariseProfile } from './lib/profile.mjs';
import {
  BUSY_MACHINE_PERCENT,
  DATABASE_LABELS,
  TARGETS,
  evaluateCrossDatabaseTarget,
  evaluateTargets,
  formatReport,
  largeDatasetComparison,
} from './lib/report.mjs';

const RESULTS_FILE = join(BENCH, 'results.json');
const CATALOG_PATH = '/api/crypto-currency-protocol-processors';
/** Route patterns of the bare Nest baseline: the service's own two routes. */
const NEST_ROUTES = [
  'api/crypto-currency-protocol-processors',
  'api/gateway/payment-status/:validationKey',
];
/** Headers Node writes itself on every response; not part of what the baselines replay. */
const NODE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** Highest value src/config/app-config.ts accepts for the two rate limits. */
const RATE_LIMIT_MAX = '10000000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const log = (line = '') => process.stderr.write(`${line}\n`);

/* ------------------------------------------------------------------------------------------ */
/* Scenarios                                                                                   */

function defineScenarios(sessions) {
  const key = (status) => validationKeyOf(indexWithStatus(sessions, status));
  // Many PENDING keys over the whole table (deterministic), for real index lookups.
  let seed = 0x2545f491;
  const nextRandom = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const pendingCount = Math.floor(sessions / 4);
  const randomPending = Array.from(
    { length: Math.min(20_000, pendingCount) },
    () => `${STATUS_PREFIX}${validationKeyOf(4 * Math.floor(nextRandom() * pendingCount) + 1)}`,
  );
  return [
    { id: 'catalog-default', label: 'catalog, default page', paths: [CATALOG_PATH], expect: 200 },
    {
      id: 'catalog-country',
      label: `catalog, countryCode=${FILTER_COUNTRY}`,
      paths: [`${CATALOG_PATH}?countryCode=${FILTER_COUNTRY}`],
      expect: 200,
    },
    {
      id: 'status-successful',
      label: 'status, SUCCESSFUL key',
      paths: [STATUS_PREFIX + key('SUCCESSFUL')],
      expect: 200,
    },
    {
      id: 'status-pending',
      label: 'status, PENDING key',
      paths: [STATUS_PREFIX + key('PENDING')],
      expect: 200,
    },
    {
      id: 'status-unknown',
      label: 'status, unknown key (404)',
      paths: [`${STATUS_PREFIX}vk_99999999_0badc0de`],
      expect: 404,
    },
    {
      id: 'status-pending-random',
      label: 'status, random PENDING keys',
      paths: randomPending,
      prefix: STATUS_PREFIX,
      expect: 200,
      extra: true,
    },
  ];
}

/* ------------------------------------------------------------------------------------------ */
/* Servers                                                                                     */

async function startService(platform, database, context, { profileDir, env: extra } = {}) {
  const { options } = context;
  const port = await freePort();
  const env = callerEnv();
  Object.assign(env, context.serviceEnv, {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: context.datasets[database].url,
    AUTH_MODE: 'api-key',
    LOG_LEVEL: context.options.logLevel,
    RATE_LIMIT_PER_MINUTE: RATE_LIMIT_MAX,
    RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: RATE_LIMIT_MAX,
    HTTP_PLATFORM: platform,
    MIGRATIONS_RUN: 'true',
  });
  Object.assign(env, extra);
  if (database === 'postgres' && options.poolSize)
    env.DATABASE_POOL_SIZE = String(options.poolSize);
  if (context.redisUrl) {
    env.REDIS_URL = context.redisUrl;
    // One Redis for every service of the run: each counts on its own keys.
    env.REDIS_KEY_PREFIX = `bench-${platform}-${database}:`;
  }
  const args = [];
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    env.BENCH_PROFILE_DIR = profileDir;
    args.push('--import', pathToFileURL(join(BENCH, 'lib', 'profiler-preload.mjs')).href);
  }
  args.push(...productionNodeFlags(ROOT), join(context.distDir, 'main.js'));
  const child = spawnTracked(process.execPath, args, {
    cwd: ROOT,
    env,
    label: `service (${platform}, ${DATABASE_LABELS[database]})`,
    logFile: join(context.dir, `service-${platform}-${database}.log`),
  });
  await waitForHttp(child, port, '/health/ready', { timeoutMs: 60_000 });
  return { name: database, database, child, port, profileDir };
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
async function collectProfile(service, platform, scenario, context) {
  const file = join(service.profileDir, `${service.profiles ?? 0}.cpuprofile`);
  service.profiles = (service.profiles ?? 0) + 1;
  const deadline = Date.now() + 30_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline || service.child.exitInfo) return { error: 'no profile written' };
    await new Promise((r) => setTimeout(r, 100));
  }
  const tag = context.labelled ? `${platform}-${service.database}` : platform;
  const target = join(BENCH, 'profiles', `${tag}-${scenario.id}.cpuprofile`);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  return { file: relative(ROOT, target), ...summariseProfile(target) };
}

/* ------------------------------------------------------------------------------------------ */
/* Capture and comparison                                                                      */

function toReplay(scenario, res) {
  const headers = [];
  let requestIdHeader = null;
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i];
    const lower = name.toLowerCase();
    if (NODE_HEADERS.has(lower)) continue;
    if (lower === 'x-request-id') requestIdHeader = name;
    headers.push([name, res.rawHeaders[i + 1]]);
  }
  return {
    id: scenario.id,
    path: scenario.paths[0],
    prefix: scenario.prefix ?? null,
    status: res.status,
    statusMessage: res.statusMessage,
    headers,
    requestIdHeader,
    body: res.body.toString('base64'),
  };
}

function comparableHeaders(rawHeaders) {
  const map = new Map();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i].toLowerCase();
    if (NODE_HEADERS.has(lower) && lower !== 'transfer-encoding') continue;
    let value = rawHeaders[i + 1];
    if (lower === 'x-request-id' && UUID.test(value)) value = '<uuid>';
    map.set(lower, map.has(lower) ? `${map.get(lower)}, ${value}` : value);
  }
  return map;
}

/** How `actual` differs from the service's `expected` response (empty when identical). */
function differences(expected, actual) {
  const out = [];
  if (expected.status !== actual.status)
    out.push(`status ${actual.status}, service ${expected.status}`);
  if (!expected.body.equals(actual.body)) {
    out.push(`body differs (${actual.body.length} bytes, service ${expected.body.length})`);
  }
  const want = comparableHeaders(expected.rawHeaders);
  const got = comparableHeaders(actual.rawHeaders);
  for (const [name, value] of want) {
    if (!got.has(name)) out.push(`header ${name} missing`);
    else if (got.get(name) !== value)
      out.push(`header ${name}: "${got.get(name)}", service "${value}"`);
  }
  for (const name of got.keys()) if (!want.has(name)) out.push(`extra header ${name}`);
  return out;
}

/**
 * Checks that each scenario answers its expected status, and captures its response (the second
 * answer, after one warm request).
 */
async function captureScenarios(service, scenarios, apiKey) {
  const headers = { key: apiKey };
  const captured = new Map();
  for (const scenario of scenarios) {
    const sample = scenario.paths.length > 1 ? scenario.paths.slice(0, 25) : scenario.paths;
    let first;
    for (const path of sample) {
      const res = await httpGet(service.port, path, headers);
      if (res.status !== scenario.expect) {
        throw new Error(
          `${scenario.label}: GET ${path} answered ${res.status}, expected ${scenario.expect}: ` +
            res.body.toString('utf8').slice(0, 300),
        );
      }
      first ??= res;
      if (!res.body.equals(first.body)) {
        throw new Error(`${scenario.label}: the sampled keys do not all answer the same body`);
      }
    }
    captured.set(scenario.id, await httpGet(service.port, scenario.paths[0], headers));
  }
  return captured;
}

async function compareBaseline(server, scenarios, captured, apiKey) {
  const found = [];
  for (const scenario of scenarios) {
    const res = await httpGet(server.port, scenario.paths[0], { key: apiKey });
    for (const d of differences(captured.get(scenario.id), res)) {
      found.push(`${server.child.label}, ${scenario.label}: ${d}`);
    }
  }
  return found;
}

/* ------------------------------------------------------------------------------------------ */
/* Measurement                                                                                 */

/**
 * Waits (at most `maxSeconds`) until other processes use less than BUSY_MACHINE_PERCENT of a
 * core, sampled over half a second while the servers are idle. Returns the seconds waited.
 */
async function waitForQuietMachine(maxSeconds) {
  const started = Date.now();
  let said = false;
  for (;;) {
    const before = machineCpu();
    const own = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 500));
    const after = machineCpu();
    if (!before || !after) return 0;
    const other = Math.round(
      ((after.user - before.user - process.cpuUsage(own).user / 1e6) / 0.5) * 100,
    );
    const waited = (Date.now() - started) / 1000;
    if (other <= BUSY_MACHINE_PERCENT) return Math.round(waited);
    if (waited >= maxSeconds) {
      log(
        `\n    machine still busy after ${maxSeconds} s (other processes ${other}% CPU); measuring anyway`,
      );
      return Math.round(waited);
    }
    if (!said) {
      process.stderr.write(`(waiting for other processes to go quiet: ${other}% CPU) `);
      said = true;
    }
  }
}

async function measure(server, scenario, context) {
  const { options, apiKey } = context;
  const waitedForQuiet = options.idleWait > 0 ? await waitForQuietMachine(options.idleWait) : 0;
  const load = {
    port: server.port,
    paths: scenario.paths,
    headers: { key: apiKey },
    connections: options.connections,
  };
  // The database server works for this service: its CPU is part of the measurement, not noise.
  const database = server.database === 'postgres' ? context.postgres : undefined;
  const sampler = startRssSampler(server.child.pid);
  await runLoad({ ...load, durationSeconds: options.warmup });
  const profiling = Boolean(server.profileDir);
  if (profiling) toggleProfiler(server);
  const cpuBefore = cpuTimes(server.child.pid);
  const databaseBefore = database?.cpu();
  const machineBefore = machineCpu();
  const ownBefore = process.cpuUsage();
  const wallBefore = process.hrtime.bigint();
  const result = await runLoad({ ...load, durationSeconds: options.duration });
  const wall = Number(process.hrtime.bigint() - wallBefore) / 1e9;
  const own = process.cpuUsage(ownBefore);
  const cpuAfter = cpuTimes(server.child.pid);
  const databaseAfter = database?.cpu();
  const machineAfter = machineCpu();
  if (profiling) toggleProfiler(server);
  const rss = sampler.stop();
  if (server.child.exitInfo) {
    throw new Error(`${server.child.label} exited during the load test`);
  }
  const share = (seconds) =>
    seconds === undefined || Number.isNaN(seconds)
      ? undefined
      : Math.max(0, Math.round((seconds / wall) * 100));
  const known = cpuBefore && cpuAfter && machineBefore && machineAfter;
  const databaseKnown = Boolean(databaseBefore && databaseAfter);
  const databaseUser = databaseKnown ? databaseAfter.user - databaseBefore.user : 0;
  return {
    ...summarise(result, scenario.expect),
    peakRssMb: rss.peakMb,
    waitedForQuietSeconds: waitedForQuiet,
    // Shares of one core: ~100 means that process was the bottleneck.
    serverCpuPercent: known ? share(cpuAfter.total - cpuBefore.total) : undefined,
    loadGeneratorCpuPercent: share((own.user + own.system) / 1e6),
    ...(database
      ? {
          databaseCpuPercent: databaseKnown
            ? share(databaseAfter.total - databaseBefore.total)
            : undefined,
        }
      : {}),
    // User-space CPU of every other process on the machine (a test suite, a build…): when it
    // is not near 0 the numbers of this measurement are not trustworthy.
    otherProcessesCpuPercent: known
      ? share(
          machineAfter.user -
            machineBefore.user -
            (cpuAfter.user - cpuBefore.user) -
            own.user / 1e6 -
            databaseUser,
        )
      : undefined,
    stealPercent: known ? share(machineAfter.steal - machineBefore.steal) : undefined,
  };
}

const median = (values) => {
  const sorted = values.filter((v) => v !== undefined && v !== null).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** One measurement, or the median of the repeats (sums for counts, max for RSS). */
function combine(runs) {
  if (runs.length === 1) return runs[0];
  const sum = (f) => runs.reduce((a, r) => a + f(r), 0);
  return {
    ...runs[0],
    rps: median(runs.map((r) => r.rps)),
    rpsMedian: median(runs.map((r) => r.rpsMedian)),
    requests: sum((r) => r.requests),
    latencyMs: Object.fromEntries(
      Object.keys(runs[0].latencyMs).map((k) => [k, median(runs.map((r) => r.latencyMs[k]))]),
    ),
    non2xx: sum((r) => r.non2xx),
    unexpectedStatus: sum((r) => r.unexpectedStatus),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    ...(runs[0].databaseCpuPercent !== undefined
      ? { databaseCpuPercent: median(runs.map((r) => r.databaseCpuPercent)) }
      : {}),
    repeats: runs,
  };
}

function formatMeasurement(m) {
  const bad = m.unexpectedStatus + m.errors + m.timeouts;
  return (
    `${m.rps.toLocaleString('en-US')} req/s, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms, ` +
    `non-2xx ${m.non2xx}, errors ${m.errors + m.timeouts}, RSS ${m.peakRssMb} MB, ` +
    `CPU server ${m.serverCpuPercent ?? '?'}% / autocannon ${m.loadGeneratorCpuPercent}%` +
    ('databaseCpuPercent' in m ? ` / PostgreSQL ${m.databaseCpuPercent ?? '?'}%` : '') +
    (m.otherProcessesCpuPercent > BUSY_MACHINE_PERCENT
      ? `  <-- other processes used ${m.otherProcessesCpuPercent}% CPU`
      : '') +
    (m.stealPercent > BUSY_MACHINE_PERCENT
      ? `  <-- ${m.stealPercent}% CPU stolen by the host`
      : '') +
    (bad > 0 ? `  <-- ${m.unexpectedStatus} unexpected statuses` : '')
  );
}

/** The per-database result of one platform, built from the measurements of its service. */
function platformResult(service, scenarios, runs, captured) {
  const results = scenarios.map((s) => {
    const r = runs.get(s.id);
    const svc = combine(r[service.name]);
    const rawM = combine(r.raw);
    const nestM = combine(r.nest);
    return {
      id: s.id,
      label: s.label,
      path: s.paths.length > 1 ? `${s.prefix}<${s.paths.length} keys>` : s.paths[0],
      expectedStatus: s.expect,
      extra: Boolean(s.extra),
      responseBytes: captured.get(s.id).body.length,
      service: svc,
      raw: rawM,
      nest: nestM,
      shareOfRaw: svc.rps / rawM.rps,
      shareOfNest: svc.rps / nestM.rps,
    };
  });
  return {
    status: 'measured',
    peakRssMb: Math.max(...results.map((s) => s.service.peakRssMb)),
    scenarios: results,
  };
}

/**
 * One platform: the service on each database of the run (all started first, so every scenario
 * measures them one right after the other, then the baselines). Returns a result per database.
 */
async function benchPlatform(platform, scenarios, context) {
  const { options, dir, apiKey } = context;
  const results = {};
  const services = [];
  const servers = [];
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
        services.push(await startService(platform, database, context, { profileDir }));
      } catch (error) {
        log(`[${platform}] NOT TESTABLE on ${label}: ${error.message}`);
        results[database] = { status: 'not testable', error: firstLine(error.message) };
      }
    }
    const captured = new Map();
    for (const service of [...services]) {
      try {
        captured.set(service.database, await captureScenarios(service, scenarios, apiKey));
      } catch (error) {
        log(`[${platform}] FAILED on ${DATABASE_LABELS[service.database]}: ${error.message}`);
        results[service.database] = { status: 'failed', error: firstLine(error.message) };
        services.splice(services.indexOf(service), 1);
        await stopChild(service.child);
      }
    }
    if (services.length === 0) return results;

    // The baselines replay the first database's answers; the others are compared with them.
    const reference = services[0].database;
    const referenceCaptured = captured.get(reference);
    const databaseDifferences = {};
    for (const service of services.slice(1)) {
      const found = [];
      for (const s of scenarios) {
        const diff = differences(
          referenceCaptured.get(s.id),
          captured.get(service.database).get(s.id),
        );
        for (const d of diff) found.push(`${s.label}: ${d}`);
      }
      databaseDifferences[service.database] = found;
      const label = DATABASE_LABELS[service.database];
      if (found.length > 0) {
        log(
          `[${platform}] WARNING: on ${label} the service answers differently from ${DATABASE_LABELS[reference]}:\n  ${found.join('\n  ')}`,
        );
      } else {
        log(`[${platform}] ${label} and ${DATABASE_LABELS[reference]}: byte-identical answers`);
      }
    }
    const spec = {
      platform,
      routes: NEST_ROUTES,
      responses: scenarios.map((s) => toReplay(s, referenceCaptured.get(s.id))),
    };
    const specFile = join(dir, `responses-${platform}.json`);
    writeFileSync(specFile, JSON.stringify(spec, null, 1));
    for (const s of scenarios) {
      const r = referenceCaptured.get(s.id);
      log(`  ${s.label}: ${r.status}, ${r.body.length} bytes, ${r.rawHeaders.length / 2} headers`);
    }
    const raw = await startBaseline('raw', platform, specFile);
    const nest = await startBaseline('nest', platform, specFile);
    servers.push(raw, nest);
    const differencesFound = [
      ...(await compareBaseline(raw, scenarios, referenceCaptured, apiKey)),
      ...(await compareBaseline(nest, scenarios, referenceCaptured, apiKey)),
    ];
    if (differencesFound.length > 0) {
      log(
        `[${platform}] WARNING: baselines differ from the service:\n  ${differencesFound.join('\n  ')}`,
      );
    } else {
      log(`[${platform}] baselines answer byte-identical bodies and the same headers`);
    }

    const targets = [...services, raw, nest];
    const runs = new Map(
      scenarios.map((s) => [s.id, Object.fromEntries(targets.map((t) => [t.name, []]))]),
    );
    const profiles = Object.fromEntries(services.map((s) => [s.database, {}]));
    const live = new Set(targets);
    for (let repeat = 0; repeat < options.repeat; repeat++) {
      for (const scenario of scenarios) {
        for (const target of targets) {
          if (!live.has(target)) continue;
          const round = options.repeat > 1 ? ` (run ${repeat + 1}/${options.repeat})` : '';
          process.stderr.write(
            `  [${platform}] ${scenario.id.padEnd(22)} ${target.name.padEnd(8)}${round} `,
          );
          let m;
          try {
            m = await measure(target, scenario, context);
          } catch (error) {
            // A service that fails on one database leaves the other measurable; a baseline does not.
            if (!target.database || services.length === 1) throw error;
            log(`FAILED: ${error.message}`);
            results[target.database] = { status: 'failed', error: firstLine(error.message) };
            live.delete(target);
            await stopChild(target.child);
            continue;
          }
          runs.get(scenario.id)[target.name].push(m);
          log(formatMeasurement(m));
          if (target.database && options.profile) {
            const summary = await collectProfile(target, platform, scenario, context);
            profiles[target.database][scenario.id] = summary;
            if (summary.areas) log(formatProfile(summary));
          }
        }
      }
    }
    for (const service of services) {
      if (!live.has(service)) continue;
      results[service.database] = {
        ...platformResult(service, scenarios, runs, captured.get(service.database)),
        baselineDifferences: differencesFound,
        ...(service.database !== reference
          ? {
              databaseReference: reference,
              databaseDifferences: databaseDifferences[service.database],
            }
          : {}),
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
    await Promise.all([...services, ...servers].map((s) => stopChild(s.child)));
  }
}

const firstLine = (text) => text.split('\n')[0];

/* ------------------------------------------------------------------------------------------ */

function readResults(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Per database, per dataset size, per platform: the last complete result (the reference of a
 * --sessions 1000000 run). Results written before PostgreSQL existed kept SQLite's as bySessions.
 */
function historyOf(previous) {
  if (previous.byDatabase) return previous.byDatabase;
  return previous.bySessions ? { sqlite: previous.bySessions } : {};
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
  const { dir, distDir } = await prepareBuild({
    root: ROOT,
    skipBuild: options.skipBuild,
    keep: options.keep,
    prefix: 'gateway-bench-',
    log,
  });
  const { databases } = options;
  const apiKey = newApiKey();
  const seedFile = writeSeedFile(dir, apiKey);
  const seedScript = join(distDir, 'seed.js');
  // Required in production and on PostgreSQL; the benchmark makes no callbacks, any key will do.
  const serviceEnv = { CALLBACK_SECRET_KEY: randomBytes(32).toString('base64') };
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

  const servers = databases.length + 2;
  const perPlatform =
    scenarios.length * servers * options.repeat * (options.warmup + options.duration);
  log(
    `${scenarios.length} scenarios × ${servers} servers × ${options.warmup + options.duration} s on ` +
      `${options.platforms.join(' and ')}: about ${Math.ceil((perPlatform * options.platforms.length) / 60)} min`,
  );

  const labelled = !(databases.length === 1 && databases[0] === 'sqlite');
  const context = {
    options,
    datasets,
    apiKey,
    serviceEnv,
    distDir,
    dir,
    postgres,
    redisUrl: redis?.url,
    labelled,
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
  const history = historyOf(previous);
  const run = {
    date: new Date().toISOString(),
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    node: process.version,
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
      scenarios: scenarios.map((s) => s.id),
      rateLimitPerMinute: Number(RATE_LIMIT_MAX),
    },
    databases: byDatabase,
    elapsedSeconds: Math.round((Date.now() - started) / 1000),
  };
  const verdicts = [];
  for (const db of databases) {
    const view = { options: run.options, platforms: byDatabase[db].platforms };
    const reference =
      options.sessions >= TARGETS.largeDatasetSessions
        ? history[db]?.[String(TARGETS.referenceSessions)]
        : undefined;
    verdicts.push(...evaluateTargets(view, reference, { database: labelled ? db : undefined }));
    const comparisons = reference ? largeDatasetComparison(view, reference) : [];
    if (comparisons.length) byDatabase[db].largeDataset = comparisons;
  }
  if (databases.includes('postgres')) verdicts.push(evaluateCrossDatabaseTarget(run));
  run.targets = verdicts;
  const report = formatReport(run, verdicts);
  run.report = report;

  process.stdout.write(`\n${report}\n`);
  if (outFile) {
    // Per database and dataset size, the latest complete result of each platform: the reference
    // that a later --sessions 1000000 run compares its status lookups with.
    const complete = !options.quick && !options.profile && !options.scenarios;
    const next = { ...history };
    if (complete) {
      for (const db of databases) {
        const key = String(options.sessions);
        const entry = { ...(next[db]?.[key] ?? {}) };
        for (const [platform, result] of Object.entries(byDatabase[db].platforms)) {
          if (result.status !== 'measured') continue;
          entry[platform] = { date: run.date, command: run.command, options: run.options, result };
        }
        next[db] = { ...(next[db] ?? {}), [key]: entry };
      }
    }
    writeFileSync(outFile, `${JSON.stringify({ latest: run, byDatabase: next }, null, 2)}\n`);
    log(`\nresults written to ${relative(process.cwd(), outFile) || outFile}`);
  } else {
    log('\nquick run: results not written (give --out <file> to keep them)');
  }
  if (options.keep) log(`temp dir kept: ${dir}`);
  const all = databases.flatMap((db) => Object.values(byDatabase[db].platforms));
  if (all.some((p) => p.status === 'failed')) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  stopLoad();
  log(`\nbenchmark failed: ${error instanceof UsageError ? error.message : error.stack}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await cleanup();
}
