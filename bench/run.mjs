/**
 * `npm run bench`: the service's benchmark (bench/README.md). Builds, seeds a dataset through the
 * service's seed command, starts the production build (`node dist/main.js`) per platform and
 * database, checks and captures its answers, starts three baselines answering the same bytes
 * (raw node:http, bare Nest, the card floor), measures them all with autocannon on 127.0.0.1,
 * then the writes, prints a Markdown report and writes bench/results.json. With --compare
 * <git-ref> the ref's build is measured too, alternately with this one.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BENCH,
  ROOT,
  loadAverage,
  machine,
  prepareBuild,
  prepareRefBuild,
  workingTreeState,
} from './lib/build.mjs';
import {
  CATALOG_PATH,
  STATUS_PATH,
  newApiKey,
  pendingKeys,
  seed,
  settlePostgres,
  startPostgres,
  startRedis,
  successfulKey,
  writeSeedFile,
} from './lib/dataset.mjs';
import { combine, formatMeasurement, measure, stopLoad } from './lib/measure.mjs';
import { USAGE, UsageError, parseOptions } from './lib/options.mjs';
import {
  cleaningUpAlready,
  cleanup,
  freePort,
  httpRequest,
  installCleanupHandlers,
  registerTempDir,
  spawnTracked,
  stopChild,
  waitForHttp,
  waitForLine,
} from './lib/processes.mjs';
import { formatProfile, summariseProfile } from './lib/profile.mjs';
import { formatReport, judge, writeResults } from './lib/report.mjs';

const log = (line = '') => process.stderr.write(`${line}\n`);
/** What every service of a run gets besides its platform, port and database. */
const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('base64url')}`;
/** High enough never to refuse (src/config/app-config.ts accepts up to 1,000,000,000). */
const RATE_LIMIT = '10000000';
/** Variables of the caller's environment that would change what is measured. */
const IGNORED_ENV = [
  'CONTEXT_PATH',
  'CATALOG_CACHE_TTL_SECONDS',
  'NODE_OPTIONS',
  'DATABASE_POOL_SIZE',
  'REDIS_URL',
  'REDIS_KEY_PREFIX',
  // Set by a build's own `start:prod` (scriptEnv): a build whose script does not set it must not
  // get it from the caller.
  'MALLOC_ARENA_MAX',
];
/** Headers Node writes itself: not part of what the baselines replay. */
const NODE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** Headers whose value changes from one answer to the next. */
const VARYING_HEADERS = new Set(['x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset']);

/* ------------------------------------------------------------------------------------------ */
/* Scenarios                                                                                   */

function defineScenarios(context) {
  const { options, apiKey } = context;
  const headers = { key: apiKey };
  const keys = pendingKeys(options.sessions);
  const read = (id, label, path, check) => ({
    id,
    label,
    kind: 'read',
    ok: 200,
    path,
    check,
    request: () => ({ path, headers }),
  });
  const runId = randomBytes(4).toString('hex');
  let written = 0;
  const writeBody = JSON.stringify({
    merchantId: 'bench',
    status: 'FAILED',
    errorMessage: 'Insufficient funds in source wallet',
    returnUrl: 'https://merchant.example/payments/return',
  });
  const all = [
    read('catalog', 'catalog, default page', CATALOG_PATH, (v) => v.payload.length === 10),
    read('catalog-ie', 'catalog, countryCode=IE', `${CATALOG_PATH}?countryCode=IE`, (v) =>
      v.payload.every((pair) => pair.countryCode === 'IE'),
    ),
    read(
      'successful',
      'one SUCCESSFUL key (cached final answer)',
      STATUS_PATH + successfulKey(options.sessions),
      (v) => v.payload[0].status === 'SUCCESSFUL',
    ),
    {
      id: 'pending-distinct',
      label: `distinct PENDING keys (${keys.length.toLocaleString('en-US')})`,
      kind: 'read',
      ok: 200,
      path: STATUS_PATH + keys[0],
      samples: keys.slice(0, 10).map((key) => STATUS_PATH + key),
      check: (v) => v.payload[0].status === 'PENDING',
      // Each server walks the list from where it stopped: keys it has not asked yet, until it wraps.
      request: (server) => ({
        headers,
        next: () => STATUS_PATH + keys[(server.cursor = (server.cursor ?? 0) + 1) % keys.length],
      }),
    },
    {
      id: 'writes',
      label: `${options.connections} writers, a new FAILED session per request`,
      kind: 'write',
      ok: 201,
      request: () => ({
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: writeBody,
        next: () => `/admin/payment-sessions/vk_w_${runId}_${written++}`,
      }),
    },
  ];
  return all.filter((s) => options.scenarios.includes(s.id));
}

/* ------------------------------------------------------------------------------------------ */
/* Servers                                                                                     */

/** `node dist/main.js` of `build` on `database`, as `npm run start:prod` runs it. */
async function startService(platform, database, build, context, instance = '') {
  const { options, dir } = context;
  const name = `${platform}-${database}-${build.name}${instance}`;
  let url = context.datasets[database].url;
  if (database === 'sqlite') {
    // A copy per service: every service starts from the same file, and none shares its lock.
    const file = join(dir, `${name}.sqlite`);
    for (const suffix of ['', '-wal']) {
      if (existsSync(context.datasets.sqlite.file + suffix))
        copyFileSync(context.datasets.sqlite.file + suffix, file + suffix);
    }
    url = `sqlite:${file}`;
  }
  const port = await freePort();
  const env = { ...process.env };
  for (const variable of IGNORED_ENV) delete env[variable];
  Object.assign(env, {
    ...build.nodeEnv,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    AUTH_MODE: 'api-key',
    LOG_LEVEL: options.logLevel,
    RATE_LIMIT_PER_MINUTE: RATE_LIMIT,
    RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: RATE_LIMIT,
    HTTP_PLATFORM: platform,
    MIGRATIONS_RUN: 'false',
    CALLBACK_SECRET_KEY: context.callbackSecretKey,
    AUDIT_KEY: context.auditKey,
    // Writes store a callback each; delivering them would add writes of its own.
    CALLBACKS_ENABLED: 'false',
    ADMIN_TOKEN,
    ...(context.redisUrl
      ? { REDIS_URL: context.redisUrl, REDIS_KEY_PREFIX: `bench-${name}:` }
      : {}),
  });
  const args = [...build.nodeFlags];
  let profileDir;
  if (options.profile) {
    profileDir = join(dir, `profiles-${name}`);
    mkdirSync(profileDir);
    env.BENCH_PROFILE_DIR = profileDir;
    args.push('--import', pathToFileURL(join(BENCH, 'lib', 'profiler-preload.mjs')).href);
  }
  const child = spawnTracked(process.execPath, [...args, join(build.distDir, 'main.js')], {
    cwd: build.root,
    env,
    label: `service ${name}`,
    logFile: join(dir, `${name}.log`),
  });
  await waitForHttp(child, port, '/health/ready');
  return {
    name: `service:${database}:${build.name}`,
    platform,
    database,
    build: build.name,
    child,
    port,
    profileDir,
    profiles: 0,
  };
}

async function startBaseline(kind, platform, replayFile) {
  const port = await freePort();
  const child = spawnTracked(
    process.execPath,
    [join(BENCH, 'baselines', `${kind}.mjs`), replayFile, String(port)],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      label: `${kind} baseline (${platform})`,
    },
  );
  await waitForLine(child, /^LISTENING /);
  return { name: kind, platform, child, port };
}

/* ------------------------------------------------------------------------------------------ */
/* Answers: checked before measuring, captured for the baselines, compared between servers      */

/** Checks each read scenario's answers and captures one answer per scenario; checks one write. */
async function capture(service, scenarios, context) {
  const captured = new Map();
  for (const scenario of scenarios) {
    if (scenario.kind === 'write') {
      const request = scenario.request();
      const res = await httpRequest(service.port, request.next(), {
        method: 'PUT',
        headers: request.headers,
        body: request.body,
      });
      if (res.status !== 201)
        throw new Error(`a write answered ${res.status}: ${res.body.toString().slice(0, 300)}`);
      continue;
    }
    for (const path of [scenario.path, ...(scenario.samples ?? [])]) {
      const res = await httpRequest(service.port, path, { headers: { key: context.apiKey } });
      let ok = res.status === 200;
      try {
        ok &&= scenario.check(JSON.parse(res.body.toString('utf8')));
      } catch {
        ok = false;
      }
      if (!ok)
        throw new Error(
          `${scenario.label}: GET ${path} answered ${res.status} ${res.body.toString().slice(0, 300)}`,
        );
      const first = captured.get(scenario.id);
      if (first && !first.body.equals(res.body))
        throw new Error(`${scenario.label}: the keys answer different bodies`);
      captured.set(scenario.id, first ?? { path, ...res });
    }
  }
  return captured;
}

function headerMap(rawHeaders) {
  const map = new Map();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (!NODE_HEADERS.has(name))
      map.set(name, VARYING_HEADERS.has(name) ? '<varies>' : rawHeaders[i + 1]);
  }
  return map;
}

/** How `actual` differs from `expected` (status, body bytes, headers; `bodyOnly` for bare Nest). */
function differences(expected, actual, bodyOnly = false) {
  const out = [];
  if (expected.status !== actual.status)
    out.push(`status ${actual.status} (expected ${expected.status})`);
  if (!expected.body.equals(actual.body))
    out.push(`body of ${actual.body.length} bytes differs (expected ${expected.body.length})`);
  if (bodyOnly) return out;
  const want = headerMap(expected.rawHeaders);
  const got = headerMap(actual.rawHeaders);
  for (const [name, value] of want)
    if (got.get(name) !== value) out.push(`header ${name}: ${got.get(name) ?? 'missing'}`);
  for (const name of got.keys()) if (!want.has(name)) out.push(`extra header ${name}`);
  return out;
}

async function answersOf(server, scenarios, apiKey) {
  const out = new Map();
  for (const s of scenarios)
    out.set(s.id, await httpRequest(server.port, s.path, { headers: { key: apiKey } }));
  return out;
}

/* ------------------------------------------------------------------------------------------ */
/* Measuring                                                                                   */

/** Measures `servers` on `scenario` once and keeps the result under `key`. */
async function measureOnce(key, servers, scenario, context, repeat) {
  const { options } = context;
  const round = options.repeat > 1 ? ` (${repeat + 1}/${options.repeat})` : '';
  process.stderr.write(`  ${key.padEnd(48)}${round} `);
  const service = servers[0].profileDir ? servers[0] : undefined;
  const m = await measure(servers, scenario, {
    options,
    postgres: servers[0].database === 'postgres' ? context.postgres : undefined,
    window: service && {
      start: () => service.child.kill('SIGWINCH'),
      stop: () => service.child.kill('SIGWINCH'),
    },
  });
  log(formatMeasurement(m, scenario.kind === 'write' ? 'write' : 'req'));
  if (!context.results.has(key)) context.results.set(key, []);
  context.results.get(key).push(m);
  if (service) await keepProfile(service, key, context);
}

/** Waits for the profile the preload writes after the window, keeps it and prints its summary. */
async function keepProfile(service, key, context) {
  const file = join(service.profileDir, `${service.profiles++}.cpuprofile`);
  for (let waited = 0; !existsSync(file) && waited < 30_000; waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  if (!existsSync(file)) return log('  (no profile written)');
  const target = join(BENCH, 'profiles', `${key.replaceAll(/[^a-z0-9-]+/gi, '-')}.cpuprofile`);
  mkdirSync(join(BENCH, 'profiles'), { recursive: true });
  copyFileSync(file, target);
  const summary = summariseProfile(target);
  context.profiles[key] = { file: relative(ROOT, target), ...summary };
  log(formatProfile(summary));
}

/** Everything of one platform: its services, their answers, the baselines, reads, SQLite writes. */
async function benchPlatform(platform, scenarios, context) {
  const { options, builds, dir } = context;
  const reads = scenarios.filter((s) => s.kind === 'read');
  const writes = scenarios.find((s) => s.kind === 'write');
  const services = [];
  const baselines = [];
  try {
    for (const database of options.databases) {
      for (const build of builds) {
        log(`[${platform}] starting the service on ${database} (${build.name} build)…`);
        services.push(await startService(platform, database, build, context));
      }
    }
    const captures = [];
    for (const service of services) captures.push(await capture(service, scenarios, context));
    const reference = captures[0];
    services.slice(1).forEach((service, i) => {
      for (const s of reads) {
        for (const d of differences(reference.get(s.id), captures[i + 1].get(s.id))) {
          context.notes.push(
            `${platform}, ${service.name} answers differently from ${services[0].name} (${s.id}): ${d}`,
          );
        }
      }
    });
    if (reads.length > 0) {
      const replayFile = join(dir, `replay-${platform}.json`);
      const answers = reads.map((s) => {
        const c = reference.get(s.id);
        const headers = [];
        for (let i = 0; i < c.rawHeaders.length; i += 2) {
          if (!NODE_HEADERS.has(c.rawHeaders[i].toLowerCase()))
            headers.push([c.rawHeaders[i], c.rawHeaders[i + 1]]);
        }
        return { path: c.path, status: c.status, headers, body: c.body.toString('base64') };
      });
      const otherStatus = reads.find((s) => s.id === 'pending-distinct')?.path ?? null;
      const replay = {
        platform,
        apiKey: context.apiKey,
        catalogPath: CATALOG_PATH,
        statusPath: STATUS_PATH,
        otherStatus,
        answers,
      };
      writeFileSync(replayFile, JSON.stringify(replay));
      for (const kind of ['raw', 'bare-nest', 'card-floor']) {
        const baseline = await startBaseline(kind, platform, replayFile);
        baselines.push(baseline);
        const got = await answersOf(baseline, reads, context.apiKey);
        const found = reads.flatMap((s) =>
          differences(reference.get(s.id), got.get(s.id), kind === 'bare-nest').map(
            (d) => `${s.id}: ${d}`,
          ),
        );
        const what = kind === 'bare-nest' ? 'bodies' : 'bytes (status, headers, body)';
        if (found.length)
          context.notes.push(
            `${platform}, ${kind} does not answer the service's ${what}: ${found.join('; ')}`,
          );
        log(
          `[${platform}] ${kind}: ${found.length ? `DIFFERS: ${found.join('; ')}` : `the service's ${what}`}`,
        );
      }
    }
    for (let repeat = 0; repeat < options.repeat; repeat++) {
      for (const scenario of reads) {
        for (const server of [...services, ...baselines]) {
          await measureOnce(
            `${platform} ${scenario.id} ${server.name}`,
            [server],
            scenario,
            context,
            repeat,
          );
        }
      }
      if (!writes) continue;
      for (const service of services.filter((s) => s.database === 'sqlite')) {
        await measureOnce(`${platform} writes ${service.name}`, [service], writes, context, repeat);
      }
    }
  } finally {
    await Promise.all([...services, ...baselines].map((s) => stopChild(s.child)));
  }
}

/** PostgreSQL writes: two instances (one per platform) per build, the writers split between them. */
async function benchPostgresWrites(scenario, context) {
  const { options, builds } = context;
  const platforms =
    options.platforms.length === 2
      ? options.platforms
      : [options.platforms[0], options.platforms[0]];
  const pairs = [];
  try {
    for (const build of builds) {
      log(
        `[postgres writes] starting two instances (${platforms.join(' + ')}, ${build.name} build)…`,
      );
      const pair = [];
      for (const [i, platform] of platforms.entries())
        pair.push(await startService(platform, 'postgres', build, context, `-${i + 1}`));
      pairs.push(pair);
      await capture(pair[0], [scenario], context);
    }
    for (let repeat = 0; repeat < options.repeat; repeat++) {
      for (const pair of pairs) {
        await measureOnce(
          `${platforms.join('+')} writes ${pair[0].name}`,
          pair,
          scenario,
          context,
          repeat,
        );
      }
    }
  } finally {
    await Promise.all(pairs.flat().map((s) => stopChild(s.child)));
  }
}

/* ------------------------------------------------------------------------------------------ */

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options.help) return void process.stdout.write(USAGE);
  installCleanupHandlers(log);
  const started = Date.now();
  const machineAtStart = machine();
  log(
    `machine: ${machineAtStart.cpuModel}, nproc ${machineAtStart.nproc}, load average ${machineAtStart.loadAverage.join(' / ')}`,
  );
  const dir = mkdtempSync(join(os.tmpdir(), 'gateway-bench-'));
  registerTempDir(dir, options.keep);
  const builds = [await prepareBuild({ dir, skipBuild: options.skipBuild, log })];
  if (options.compare)
    builds.push({
      ...(await prepareRefBuild(options.compare, log)),
      seedFlags: builds[0].seedFlags,
    });
  const apiKey = newApiKey();
  const context = {
    options,
    builds,
    dir,
    apiKey,
    callbackSecretKey: randomBytes(32).toString('base64'),
    auditKey: randomBytes(32).toString('base64'),
    datasets: {},
    results: new Map(),
    profiles: {},
    notes: [],
  };
  const scenarios = defineScenarios(context);

  log(`writing the seed file (${options.sessions.toLocaleString('en-US')} sessions, 5,000 pairs)…`);
  const seedFile = await writeSeedFile(dir, { sessions: options.sessions, apiKey });
  const seedEnv = { CALLBACK_SECRET_KEY: context.callbackSecretKey, AUDIT_KEY: context.auditKey };
  if (options.databases.includes('sqlite')) {
    const file = join(dir, 'seeded.sqlite');
    const seeding = await seed({
      build: builds[0],
      file: seedFile,
      url: `sqlite:${file}`,
      env: seedEnv,
      label: 'SQLite',
    });
    context.datasets.sqlite = { file, url: `sqlite:${file}`, seeding };
    log(`SQLite seeded in ${seeding.seconds} s (seed process peak RSS ${seeding.peakRssMb} MB)`);
  }
  if (options.databases.includes('postgres')) {
    log('starting PostgreSQL (test/support/servers.ts)…');
    context.postgres = await startPostgres();
    const { url } = context.postgres;
    const seeding = await seed({
      build: builds[0],
      file: seedFile,
      url,
      env: seedEnv,
      label: 'PostgreSQL',
    });
    context.datasets.postgres = { url, seeding, databaseMb: await settlePostgres(url) };
    log(
      `PostgreSQL seeded in ${seeding.seconds} s (seed process peak RSS ${seeding.peakRssMb} MB)`,
    );
  }
  if (options.redis) context.redisUrl = await startRedis();

  const measured = scenarios.filter((s) => s.id !== 'seed');
  if (measured.length > 0) {
    for (const platform of options.platforms) await benchPlatform(platform, measured, context);
    const writes = measured.find((s) => s.kind === 'write');
    if (writes && options.databases.includes('postgres'))
      await benchPostgresWrites(writes, context);
  }

  const state = workingTreeState();
  const run = {
    date: new Date().toISOString(),
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    commit: state.commit,
    dirty: state.dirty,
    machine: machineAtStart,
    loadAverageAtEnd: loadAverage(),
    node: process.version,
    options: { ...options, help: undefined },
    compare: builds[1] && {
      ref: builds[1].ref,
      commit: builds[1].commit,
      modules: builds[1].modules,
      migrationDifferences: builds[1].migrationDifferences,
    },
    scenarios: scenarios.map(({ id, label, kind }) => ({ id, label, kind })),
    datasets: Object.fromEntries(
      Object.entries(context.datasets).map(([db, d]) => [
        db,
        { seeding: d.seeding, databaseMb: d.databaseMb },
      ]),
    ),
    postgres: context.postgres && { settings: context.postgres.settings },
    results: Object.fromEntries([...context.results].map(([key, runs]) => [key, combine(runs)])),
    profiles: options.profile ? context.profiles : undefined,
    notes: context.notes,
    elapsedSeconds: Math.round((Date.now() - started) / 1000),
  };
  run.targets = judge(run);
  process.stdout.write(`\n${formatReport(run)}\n`);
  const out = options.out
    ? resolve(options.out)
    : options.quick
      ? null
      : join(BENCH, 'results.json');
  if (out) {
    writeResults(out, run);
    log(`\nresults written to ${relative(process.cwd(), out) || out}`);
  } else {
    log('\nquick run: results not written (give --out <file> to keep them)');
  }
  if (options.keep) log(`temp dir kept: ${dir}`);
}

try {
  await main();
} catch (error) {
  stopLoad();
  if (cleaningUpAlready()) log('\nbenchmark interrupted');
  else log(`\nbenchmark failed: ${error.stack}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
