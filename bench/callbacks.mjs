/**
 * `npm run bench:callbacks`: a burst of transitions delivered as callbacks to a local receiver
 * while the read scenarios run. Builds, copies dist/ to a temp dir, creates a SQLite dataset (the
 * bench dataset plus a merchant callback secret and the receiver's URLs on every PENDING
 * session), starts a receiver process, then per HTTP platform starts `node dist/main.js` and, per
 * read scenario, measures the reads without a burst, then during a burst of operator PUTs (a
 * process of its own) and reports reads kept, delivery rate, lag and exactly-once delivery.
 * Prints a Markdown report and writes bench/callbacks.json (unless --quick).
 * Options: node bench/callbacks.mjs --help
 */
import { createRequire } from 'node:module';
import { BENCH, ROOT, machine, prepareBuild, productionNodeFlags } from './lib/build.mjs';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  STATUS_PREFIX,
  createDataset,
  indexWithStatus,
  newApiKey,
  sessionsPerStatus,
  validationKeyOf,
} from './lib/dataset.mjs';
import { runLoad, stopLoad } from './lib/loadgen.mjs';
import {
  callerEnv,
  cleanup,
  freePort,
  httpGet,
  installCleanupHandlers,
  outputTail,
  spawnTracked,
  stopChild,
  waitForHttp,
  waitForLine,
} from './lib/processes.mjs';
import {
  ERROR_PATH,
  RETURN_PATH,
  newCallbackSecret,
  outboxSummary,
  pendingIndex,
  sessionsFor,
  setCallbackUrls,
  writeCallbackSeedFile,
} from './lib/callbacks-dataset.mjs';
import {
  Latencies,
  startReadLoad,
  startSampler,
  stopReadLoad,
  windowStats,
} from './lib/callbacks-load.mjs';
import { CALLBACKS_USAGE, UsageError, parseCallbackOptions } from './lib/callbacks-options.mjs';
import { optionsOrUsage } from './lib/options.mjs';
import { analyseBurst, formatCallbackReport, verdictsOf } from './lib/callbacks-report.mjs';

const RESULTS_FILE = join(BENCH, 'callbacks.json');
const RECEIVER_SCRIPT = join(BENCH, 'lib', 'callbacks-receiver.mjs');
const BURST_SCRIPT = join(BENCH, 'lib', 'callbacks-burst.mjs');
const CATALOG_PATH = '/api/crypto-currency-protocol-processors';
/** Transitions of the burst that warms each service up before anything is measured. */
const WARMUP_TRANSITIONS = 200;
/** The dataset of npm run bench; more when the bursts need more PENDING sessions. */
const MIN_SESSIONS = 100_000;
/** A burst whose deliveries make no progress for this long is over (what is missing is reported). */
const STALL_MS = 30_000;
const BURST_LIMIT_MS = 60 * 60_000;
/**
 * NODE_ENV=production refuses http:// callback URLs (CallbackSender.urlRefusal) whatever
 * CALLBACK_ALLOW_PRIVATE_NETWORKS says: that variable lifts the address check only, and the
 * receiver is plain http on loopback. So the service runs as in development, which changes
 * nothing else on the measured paths (see src/config/app-config.ts, src/cli/serve.ts).
 */
const NODE_ENV = 'development';
const NODE_ENV_REASON =
  'production refuses http:// callback URLs even with CALLBACK_ALLOW_PRIVATE_NETWORKS=true, ' +
  'which lifts only the loopback/private address check';
/** Variables of the caller's environment that would change what is measured, beyond callerEnv's. */
const IGNORED_ENV = [
  'CALLBACK_TIMEOUT_MS',
  'CALLBACK_RETRY_SCHEDULE',
  'CALLBACK_ALLOW_PRIVATE_NETWORKS',
  'CALLBACKS_ENABLED',
];

const log = (line = '') => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* ------------------------------------------------------------------------------------------ */
/* Build and processes                                                                         */

async function startReceiver(context) {
  const port = await freePort();
  const child = spawnTracked(process.execPath, [RECEIVER_SCRIPT, String(port)], {
    cwd: ROOT,
    env: { ...process.env, BENCH_CALLBACK_SECRET: context.callbackSecret },
    label: 'callback receiver',
  });
  await waitForLine(child, /^LISTENING /, 30_000);
  return { child, port, url: `http://127.0.0.1:${port}` };
}

async function receiverCall(context, path) {
  const res = await httpGet(context.receiver.port, `/_bench/${path}`, {}, 30_000);
  if (res.status !== 200) throw new Error(`receiver /_bench/${path}: HTTP ${res.status}`);
  return JSON.parse(res.body.toString('utf8'));
}

async function startService(platform, databaseFile, context) {
  const port = await freePort();
  const env = callerEnv(IGNORED_ENV);
  Object.assign(env, context.serviceEnv, {
    NODE_ENV,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${databaseFile}`,
    AUTH_MODE: 'api-key',
    ADMIN_TOKEN: context.adminToken,
    LOG_LEVEL: context.options.logLevel,
    RATE_LIMIT_PER_MINUTE: String(context.rateLimitMax),
    RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: String(context.rateLimitMax),
    HTTP_PLATFORM: platform,
    MIGRATIONS_RUN: 'true',
    CALLBACKS_ENABLED: 'true',
  });
  const child = spawnTracked(
    process.execPath,
    [...productionNodeFlags(ROOT), join(context.distDir, 'main.js')],
    {
      cwd: ROOT,
      env,
      label: `service (${platform})`,
      logFile: join(context.dir, `service-${platform}.log`),
    },
  );
  await waitForHttp(child, port, '/health/ready', { timeoutMs: 60_000 });
  return { child, port, platform, databaseFile };
}

/* ------------------------------------------------------------------------------------------ */
/* Measurements                                                                                */

function loadOf(service, scenario, context) {
  return {
    port: service.port,
    paths: [scenario.path],
    source: { firstPath: scenario.path },
    headers: { key: context.apiKey },
    connections: context.options.connections,
  };
}

/** The reads alone: warm-up, then `duration` seconds (nothing is due in the outbox). */
async function measureWithout(service, scenario, context) {
  const { options } = context;
  await runLoad({ ...loadOf(service, scenario, context), durationSeconds: options.warmup });
  const load = startReadLoad({
    ...loadOf(service, scenario, context),
    maxSeconds: options.duration,
  });
  const sampler = startSampler({
    answers: load.answers,
    servicePid: service.child.pid,
    pids: () => ({ service: service.child.pid, receiver: context.receiver.child.pid }),
  });
  await load.done;
  const samples = sampler.stop();
  if (service.child.exitInfo) throw new Error(`${service.child.label} exited during the load`);
  return windowStats(samples, load.answers, -Infinity, Infinity);
}

/**
 * Waits until the burst process has ended and every transition it got a 200 for has been called
 * back, or deliveries make no progress for STALL_MS; returns the burst process's record.
 */
async function awaitDeliveries(service, driver, out, context) {
  let record;
  let lastProgress = Date.now();
  let lastCount = -1;
  let lastLog = Date.now();
  const deadline = Date.now() + BURST_LIMIT_MS;
  for (;;) {
    await sleep(250);
    if (service.child.exitInfo) {
      throw new Error(
        `${service.child.label} exited during the burst:\n${outputTail(service.child)}`,
      );
    }
    const stats = await receiverCall(context, 'stats');
    if (stats.distinctIds !== lastCount) {
      lastCount = stats.distinctIds;
      lastProgress = Date.now();
    }
    if (Date.now() - lastLog >= 30_000) {
      lastLog = Date.now();
      process.stderr.write(`(${stats.distinctIds} delivered) `);
    }
    if (driver.exitInfo) {
      if (driver.exitInfo.code !== 0)
        throw new Error(`${driver.label} failed:\n${outputTail(driver)}`);
      record ??= JSON.parse(readFileSync(out, 'utf8'));
      const accepted = record.transitions.filter((t) => t[4] === 200).length;
      if (stats.distinctIds >= accepted) return record;
      if (Date.now() - lastProgress > STALL_MS) {
        log(`\n    deliveries stalled at ${stats.distinctIds}/${accepted}; ending the burst`);
        return record;
      }
    }
    if (Date.now() > deadline) {
      log(`\n    burst still running after ${BURST_LIMIT_MS / 60_000} min; ending it`);
      await stopChild(driver);
      return undefined;
    }
  }
}

/**
 * One burst of `count` transitions from PENDING session `firstPending` on, sent by its own
 * process from `startAt`; resolves when every accepted transition has been called back (or
 * deliveries stall). `during` runs meanwhile (the read load) and is stopped at the end.
 */
async function runBurst(service, { firstPending, count, tag, startInMs }, context, during) {
  await receiverCall(context, 'reset');
  const out = join(context.dir, `burst-${tag}.json`);
  const planFile = join(context.dir, `burst-${tag}-plan.json`);
  const startAt = Date.now() + startInMs;
  writeFileSync(
    planFile,
    JSON.stringify({
      port: service.port,
      startAt,
      concurrency: context.options.concurrency,
      firstPending,
      count,
      out,
    }),
  );
  const driver = spawnTracked(process.execPath, [BURST_SCRIPT, planFile], {
    cwd: ROOT,
    env: { ...process.env, BENCH_ADMIN_TOKEN: context.adminToken },
    label: `burst (${tag})`,
  });
  const ready = waitForLine(driver, /^READY/, 60_000);
  let measuring;
  let record;
  try {
    measuring = await during?.start(driver);
    await ready;
    record = await awaitDeliveries(service, driver, out, context);
  } catch (error) {
    await measuring?.stop().catch(() => undefined);
    await stopChild(driver);
    throw error;
  }
  const samples = await measuring?.stop();
  // Late duplicates (a second attempt of a delivered callback) would arrive now.
  await sleep(1000);
  const deliveries = await receiverCall(context, 'deliveries');
  record ??= existsSync(out)
    ? JSON.parse(readFileSync(out, 'utf8'))
    : { transitions: [], errors: ['the burst process wrote nothing'] };
  const burst = analyseBurst(record, deliveries);
  const keys = record.transitions.map((t) => t[0]);
  const outbox = await outboxSummary(service.databaseFile, keys[0], keys[keys.length - 1]);
  return { burst, outbox, samples, answers: measuring?.answers, lateStartMs: record.lateStartMs };
}

/**
 * A measured burst from PENDING session `firstPending` on. With a `scenario`, its reads run from
 * before the first PUT (after a warm-up) to after the last delivery; without, the burst runs
 * alone. Either way the processes' CPU is sampled over the burst's window.
 */
async function measureBurst(service, scenario, firstPending, context) {
  const { options } = context;
  let load;
  const during = {
    start: async (driver) => {
      if (scenario) {
        await runLoad({ ...loadOf(service, scenario, context), durationSeconds: options.warmup });
        load = startReadLoad({ ...loadOf(service, scenario, context), maxSeconds: 3600 });
      }
      const answers = load?.answers ?? { ok: 0, other: 0, latencies: new Latencies() };
      const sampler = startSampler({
        answers,
        servicePid: service.child.pid,
        pids: () => ({
          service: service.child.pid,
          receiver: context.receiver.child.pid,
          burst: driver.exitInfo ? undefined : driver.pid,
        }),
      });
      return {
        answers,
        stop: async () => {
          await load?.stop();
          return sampler.stop();
        },
      };
    },
  };
  // With reads, the burst starts after their warm-up, about a second into the measured load.
  const startInMs = scenario ? options.warmup * 1000 + 2000 : 500;
  const tag = `${service.platform}-${scenario?.id ?? 'alone'}`;
  const { burst, outbox, samples, answers, lateStartMs } = await runBurst(
    service,
    { firstPending, count: options.transitions, tag, startInMs },
    context,
    during,
  );
  const window = windowStats(samples, answers, burst.window.from, burst.window.to);
  return {
    burst,
    outbox,
    window,
    lateStartMs,
    loadStartedBeforeBurstMs: burst.window.from - samples[0].at,
  };
}

async function benchPlatform(platform, scenarios, context) {
  const { options } = context;
  const databaseFile = join(context.dir, `callbacks-${platform}.sqlite`);
  copyFileSync(context.databaseFile, databaseFile);
  log(`\n[${platform}] starting the service (NODE_ENV=${NODE_ENV})…`);
  const service = await startService(platform, databaseFile, context);
  const notes = [];
  try {
    for (const scenario of scenarios) {
      const res = await httpGet(service.port, scenario.path, { key: context.apiKey });
      if (res.status !== 200) {
        throw new Error(
          `${scenario.label}: HTTP ${res.status} ${res.body.toString().slice(0, 200)}`,
        );
      }
    }
    let nextPending = 0;
    const warmCount = Math.min(WARMUP_TRANSITIONS, options.transitions);
    log(`[${platform}] warm-up burst of ${warmCount} transitions…`);
    const warm = await runBurst(
      service,
      { firstPending: nextPending, count: warmCount, tag: `${platform}-warmup`, startInMs: 300 },
      context,
    );
    nextPending += warmCount;
    if (!warm.burst.exactlyOnce) {
      throw new Error(
        `warm-up burst not delivered exactly once: ${JSON.stringify({ ...warm.burst, window: undefined })}\n` +
          outputTail(service.child),
      );
    }
    log(
      `[${platform}] warm-up: ${warm.burst.delivered}/${warmCount} delivered, lag p50 ${warm.burst.lagMs.p50} ms`,
    );
    process.stderr.write(`[${platform}] a burst of ${options.transitions} transitions alone… `);
    const alone = await measureBurst(service, null, nextPending, context);
    nextPending += options.transitions;
    log(
      `${alone.burst.delivered}/${alone.burst.accepted} delivered at ${alone.burst.deliveryRate}/s ` +
        `(PUTs ${alone.burst.putRate}/s), lag p50 ${alone.burst.lagMs.p50} ms p99 ${alone.burst.lagMs.p99} ms`,
    );
    const measured = [];
    for (const scenario of scenarios) {
      const readsAlone = async (when) => {
        process.stderr.write(`[${platform}] ${scenario.id}: reads without a burst (${when})… `);
        const m = await measureWithout(service, scenario, context);
        log(`${m.rps.toLocaleString('en-US')} req/s, service CPU ${m.cpuPercent.service}%`);
        return m;
      };
      const before = await readsAlone('before');
      process.stderr.write(
        `[${platform}] ${scenario.id}: reads during a burst of ${options.transitions} transitions… `,
      );
      const d = await measureBurst(service, scenario, nextPending, context);
      nextPending += options.transitions;
      log(
        `${(d.window.rps ?? 0).toLocaleString('en-US')} req/s over ${d.window.seconds} s; ` +
          `${d.burst.delivered}/${d.burst.accepted} delivered at ${d.burst.deliveryRate}/s, ` +
          `lag p50 ${d.burst.lagMs.p50} ms p99 ${d.burst.lagMs.p99} ms`,
      );
      // Measured again once the burst is over (nothing due): the reference is the mean of both,
      // so a drift of the machine over a long burst does not decide the ratio alone.
      const after = await readsAlone('after');
      const without = {
        rps: Math.round((before.rps + after.rps) / 2),
        before: before.rps,
        after: after.rps,
      };
      const ratio = d.window.seconds > 0 && without.rps > 0 ? d.window.rps / without.rps : null;
      if (d.window.seconds > 0 && d.window.seconds < 5) {
        notes.push(
          `${scenario.label}: the burst lasted only ${d.window.seconds} s; reads measured over that overlap only (noisy)`,
        );
      }
      if (d.lateStartMs > 100 || d.loadStartedBeforeBurstMs < 0) {
        notes.push(
          `${scenario.label}: the burst started ${d.lateStartMs} ms late / the read load ` +
            `${d.loadStartedBeforeBurstMs} ms before it; the window is the overlap`,
        );
      }
      measured.push({
        id: scenario.id,
        label: scenario.label,
        path: scenario.path.startsWith(STATUS_PREFIX) ? `${STATUS_PREFIX}…` : scenario.path,
        without,
        withoutBefore: before,
        withoutAfter: after,
        during: d.window,
        ratio: ratio === null ? null : Math.round(ratio * 1000) / 1000,
        burst: d.burst,
        outbox: d.outbox,
      });
    }
    return {
      status: 'measured',
      warmupBurst: { ...warm.burst, outbox: warm.outbox },
      alone: { burst: alone.burst, outbox: alone.outbox, window: alone.window },
      scenarios: measured,
      notes,
    };
  } catch (error) {
    log(`\n[${platform}] FAILED: ${error.message}`);
    return { status: 'failed', error: error.message.split('\n')[0] };
  } finally {
    await stopChild(service.child);
  }
}

/* ------------------------------------------------------------------------------------------ */

async function main() {
  const options = optionsOrUsage(parseCallbackOptions, CALLBACKS_USAGE, log);
  if (!options) return;
  installCleanupHandlers(log);
  const started = Date.now();
  const { dir, distDir } = await prepareBuild({
    root: ROOT,
    skipBuild: options.skipBuild,
    keep: options.keep,
    prefix: 'gateway-callbacks-',
    log,
  });
  const { INTEGER_VARIABLES } = await import(
    pathToFileURL(join(distDir, 'config', 'app-config.js')).href
  );
  const rateLimitMax = Math.min(
    INTEGER_VARIABLES.RATE_LIMIT_PER_MINUTE.max,
    INTEGER_VARIABLES.RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE.max,
  );

  const context = {
    options,
    dir,
    distDir,
    rateLimitMax,
    apiKey: newApiKey(),
    adminToken: `bench-admin-${randomBytes(24).toString('base64url')}`,
    callbackSecret: newCallbackSecret(),
    // The key the merchant's secret is stored under: the seed and the services share it.
    serviceEnv: {
      CALLBACK_SECRET_KEY: randomBytes(32).toString('base64'),
      AUDIT_KEY: randomBytes(32).toString('base64'),
    },
  };
  context.receiver = await startReceiver(context);
  log(`receiver on ${context.receiver.url} (pid ${context.receiver.child.pid})`);

  const scenarioCount = 2;
  // Per platform: the warm-up burst, one burst alone, one per read scenario (own database copy).
  const pendingNeeded =
    Math.min(WARMUP_TRANSITIONS, options.transitions) + (scenarioCount + 1) * options.transitions;
  const sessions = sessionsFor(pendingNeeded, options.quick ? 20_000 : MIN_SESSIONS);
  const seedFile = writeCallbackSeedFile(dir, context.apiKey, context.callbackSecret);
  log(`generating the SQLite dataset in ${dir} (${sessions.toLocaleString('en-US')} sessions)…`);
  const dataset = await createDataset({
    root: ROOT,
    dir,
    seedScript: join(distDir, 'seed.js'),
    seedFile,
    sessions,
    env: context.serviceEnv,
    log,
  });
  context.databaseFile = dataset.url.slice('sqlite:'.length);
  const withUrls = await setCallbackUrls(context.databaseFile, {
    returnUrl: `${context.receiver.url}${RETURN_PATH}`,
    errorUrl: `${context.receiver.url}${ERROR_PATH}`,
  });
  if (withUrls !== sessionsPerStatus(sessions).PENDING || withUrls < pendingNeeded) {
    throw new Error(`${withUrls} PENDING sessions got callback URLs; ${pendingNeeded} needed`);
  }
  log(`${withUrls.toLocaleString('en-US')} PENDING sessions call back ${context.receiver.url}`);

  const scenarios = [
    {
      id: 'status-successful',
      label: 'status, SUCCESSFUL key',
      path: STATUS_PREFIX + validationKeyOf(indexWithStatus(sessions, 'SUCCESSFUL')),
    },
    { id: 'catalog-default', label: 'catalog, default page', path: CATALOG_PATH },
  ];
  if (scenarios.length !== scenarioCount) throw new Error('scenarioCount is out of date');
  // The bursts take PENDING sessions in order; no scenario reads one of them.
  if (indexWithStatus(sessions, 'SUCCESSFUL') === pendingIndex(0)) throw new Error('overlap');

  const platforms = {};
  for (const platform of options.platforms) {
    platforms[platform] = await benchPlatform(platform, scenarios, context);
  }

  const require = createRequire(import.meta.url);
  const run = {
    date: new Date().toISOString(),
    command: `npm run bench:callbacks -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: machine(),
    node: process.version,
    autocannon: require('autocannon/package.json').version,
    options: { ...options, help: undefined },
    dataset: { ...dataset.summary, pendingWithCallbackUrls: withUrls },
    service: {
      nodeEnv: NODE_ENV,
      nodeEnvReason: NODE_ENV_REASON,
      rateLimitPerMinute: rateLimitMax,
      callbackTimeoutMs: INTEGER_VARIABLES.CALLBACK_TIMEOUT_MS.default,
      warmupTransitions: Math.min(WARMUP_TRANSITIONS, options.transitions),
    },
    platforms,
    elapsedSeconds: Math.round((Date.now() - started) / 1000),
  };
  const verdicts = verdictsOf(platforms);
  run.targets = verdicts;
  run.report = formatCallbackReport(run, verdicts);
  process.stdout.write(`\n${run.report}\n`);
  if (!options.quick) {
    // Formatted as `prettier --check .` (npm run lint) wants it.
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(RESULTS_FILE)) ?? {};
    writeFileSync(
      RESULTS_FILE,
      await prettier.format(JSON.stringify(run), { ...config, filepath: RESULTS_FILE }),
    );
    log(`\nresults written to ${relative(process.cwd(), RESULTS_FILE) || RESULTS_FILE}`);
  } else {
    log('\nquick run: results not written');
  }
  if (options.keep) log(`temp dir kept: ${dir}`);
  if (Object.values(platforms).some((p) => p.status !== 'measured')) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  stopLoad();
  stopReadLoad();
  log(`\nbenchmark failed: ${error instanceof UsageError ? error.message : error.stack}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await cleanup();
}
