/** Command-line options of bench/run.mjs. */

export const USAGE = `usage: npm run bench -- [options]     (or: node bench/run.mjs [options])

  --platform express|fastify|both   HTTP platform(s) of the service (default both)
  --database sqlite|postgres|postgres-only
                                    database(s) of the service (default sqlite). postgres: SQLite
                                    and PostgreSQL side by side in the same run (each scenario on
                                    both, one right after the other), with the PostgreSQL targets;
                                    postgres-only: PostgreSQL alone (quicker, e.g. with --profile)
  --pool-size <n>                   DATABASE_POOL_SIZE of the service on PostgreSQL (default: the
                                    service's own, 10)
  --redis                           start a Redis and give every service REDIS_URL (shared
                                    rate-limit counters); without it no service uses Redis
  --duration <s>                    measured seconds per scenario and server (default 10, at least 10
                                    unless --quick)
  --warmup <s>                      warm-up seconds before each measurement (default 2)
  --connections <n>                 autocannon connections (default 50)
  --sessions <n>                    payment sessions in the dataset (default 100000; the large
                                    variant is 1000000)
  --repeat <n>                      measure every scenario n times, report medians and the spread
                                    (default 1)
  --scenarios <id,id>               only these scenarios: catalog-default, catalog-country,
                                    status-successful, status-pending, status-unknown,
                                    status-pending-random, status-distinct
  --compare <git-ref>               also build <git-ref> in a temporary git worktree and measure
                                    both builds alternately (this, ref, this, ref… --repeat
                                    times per scenario) against the same dataset; prints req/s and
                                    CPU µs per request side by side with PASS/FAIL (≤ 5 % fewer
                                    req/s, ≤ 5 % more CPU per request than the ref)
  --idle-wait <s>                   before each measurement, wait up to this long for other
                                    processes to go quiet (default 60, with --quick 0; 0 = do not
                                    wait)
  --log-level <level>               LOG_LEVEL of the service (default warn)
  --profile                         CPU-profile the service during each measured run (V8 profiler
                                    via a preload); profiles go to bench/profiles/<platform>-
                                    <database>-<id>.cpuprofile and a summary is printed
  --quick                           smoke run: short defaults (1 s warm-up, 3 s, no wait for
                                    quiet), no minimum, and results are not written unless --out
                                    is given
  --out <file>                      where to write the results (default bench/results.json)
  --skip-build                      do not run npm run build first
  --keep                            keep the temp dir (database, captured responses, logs)
  --help
`;

const PLATFORMS = ['express', 'fastify'];
/** --database values and the databases each one measures (SQLite first: the reference). */
const DATABASES = {
  sqlite: ['sqlite'],
  postgres: ['sqlite', 'postgres'],
  'postgres-only': ['postgres'],
};
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class UsageError extends Error {}

export function positiveNumber(name, raw) {
  const value = Number(raw);
  if (raw === undefined || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${name} needs a positive number (got ${raw ?? 'nothing'})`);
  }
  return value;
}

export function positiveInteger(name, raw) {
  const value = positiveNumber(name, raw);
  if (!Number.isInteger(value)) throw new UsageError(`${name} needs an integer (got ${raw})`);
  return value;
}

/** --platform of both bench scripts: the platforms to measure (default both). */
export function platformsOption(given) {
  const platform = given['--platform'] ?? 'both';
  if (platform !== 'both' && !PLATFORMS.includes(platform)) {
    throw new UsageError(`--platform must be express, fastify or both (got ${platform})`);
  }
  return platform === 'both' ? PLATFORMS : [platform];
}

/** --log-level of both bench scripts: LOG_LEVEL of the service (default warn). */
export function logLevelOption(given) {
  const logLevel = given['--log-level'] ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return logLevel;
}

function nonNegativeNumber(raw) {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new UsageError(`--idle-wait needs a number of seconds ≥ 0 (got ${raw})`);
  }
  return value;
}

/**
 * The options of a command line: `{ '--flag': true, '--name': 'value' }`. Values come as
 * `--name value` or `--name=value`; anything not in `flags` or `valued` is a usage error.
 */
export function splitArgv(argv, { flags, valued }) {
  const given = {};
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (flags.includes(arg)) {
      given[arg] = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    if (!valued.includes(arg)) throw new UsageError(`unknown option ${arg}`);
    value ??= argv[++i];
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    given[arg] = value;
  }
  return given;
}

/**
 * The options of this process's command line, or undefined when the run stops here: after
 * --help (the usage printed) or a usage error (printed with the usage, exit code 2).
 */
export function optionsOrUsage(parse, usage, log) {
  let options;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`${error.message}\n\n${usage}`);
    process.exitCode = 2;
    return undefined;
  }
  if (!options.help) return options;
  process.stdout.write(usage);
  return undefined;
}

export function parseOptions(argv) {
  const given = splitArgv(argv, {
    flags: ['--quick', '--profile', '--skip-build', '--keep', '--redis', '--help', '-h'],
    valued: [
      '--platform',
      '--database',
      '--pool-size',
      '--duration',
      '--warmup',
      '--connections',
      '--sessions',
      '--repeat',
      '--scenarios',
      '--log-level',
      '--idle-wait',
      '--out',
      '--compare',
    ],
  });

  const quick = Boolean(given['--quick']);
  const platforms = platformsOption(given);
  const database = given['--database'] ?? 'sqlite';
  if (!Object.hasOwn(DATABASES, database)) {
    throw new UsageError(
      `--database must be ${Object.keys(DATABASES).join(', ')} (got ${database})`,
    );
  }
  const poolSize = given['--pool-size']
    ? positiveInteger('--pool-size', given['--pool-size'])
    : null;
  if (poolSize !== null && !DATABASES[database].includes('postgres')) {
    throw new UsageError('--pool-size is for PostgreSQL: add --database postgres');
  }
  let duration = given['--duration'] ? positiveNumber('--duration', given['--duration']) : null;
  const notes = [];
  if (duration === null) duration = quick ? 3 : 10;
  if (!quick && duration < 10) {
    notes.push(`--duration ${duration} raised to the minimum of 10 s (use --quick for smoke runs)`);
    duration = 10;
  }
  const logLevel = logLevelOption(given);
  const compare = given['--compare'] ?? null;
  if (compare !== null && (compare === '' || compare.startsWith('-'))) {
    throw new UsageError('--compare needs a git ref (a branch, tag or commit)');
  }
  if (compare !== null && given['--profile']) {
    throw new UsageError('--compare and --profile: profile each build in a run of its own');
  }
  return {
    help: Boolean(given['--help'] || given['-h']),
    platforms,
    database,
    databases: DATABASES[database],
    poolSize,
    redis: Boolean(given['--redis']),
    duration,
    warmup: given['--warmup'] ? positiveNumber('--warmup', given['--warmup']) : quick ? 1 : 2,
    connections: given['--connections']
      ? positiveInteger('--connections', given['--connections'])
      : 50,
    sessions: given['--sessions'] ? positiveInteger('--sessions', given['--sessions']) : 100_000,
    repeat: given['--repeat'] ? positiveInteger('--repeat', given['--repeat']) : 1,
    scenarios: given['--scenarios'] ? given['--scenarios'].split(',').map((s) => s.trim()) : null,
    logLevel,
    // A smoke run on a busy machine should not wait a minute before each of its measurements.
    idleWait:
      given['--idle-wait'] === undefined
        ? quick
          ? 0
          : 60
        : nonNegativeNumber(given['--idle-wait']),
    profile: Boolean(given['--profile']),
    compare,
    quick,
    out: given['--out'] ?? null,
    skipBuild: Boolean(given['--skip-build']),
    keep: Boolean(given['--keep']),
    notes,
  };
}
