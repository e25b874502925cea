/** Command-line options of bench/run.mjs. */

export const SCENARIO_IDS = [
  'catalog',
  'catalog-ie',
  'successful',
  'pending-distinct',
  'writes',
  'seed',
];

export const USAGE = `usage: npm run bench -- [options]     (or: node bench/run.mjs [options])

  --platform express|fastify|both  HTTP platform(s) (default both)
  --database sqlite|postgres|postgres-only
                                   sqlite (default): one SQLite file; postgres: SQLite and a
                                   throwaway PostgreSQL in the same run; postgres-only: PostgreSQL
  --scenarios <id,id>              only these (default all): ${SCENARIO_IDS.join(', ')}
  --compare <git-ref>              also build <git-ref> in a temporary git worktree and measure both
                                   builds alternately (this, ref, this, ref…) in the same run
  --repeat <n>                     measure everything n times: medians and the spread (default 1)
  --duration <s>                   measured seconds per measurement (default 10, at least 10
                                   unless --quick)
  --warmup <s>                     warm-up seconds before each measurement (default 2)
  --connections <n>                autocannon connections, and concurrent writers (default 50)
  --sessions <n>                   payment sessions in the dataset (default 100000, --quick 20000)
  --log-level <level>              LOG_LEVEL of the service (default info: the targets' level)
  --redis                          a throwaway Redis for the rate-limit counters of every service
  --profile                        V8 CPU profile of the service per measurement, summarised;
                                   files in bench/profiles/ (not with --compare)
  --quick                          smoke run: 1 s warm-up, 3 s windows, 20,000 sessions; nothing
                                   written unless --out is given; no verdicts
  --out <file>                     where to write the results (default bench/results.json)
  --skip-build                     do not run npm run build first (the --compare ref is built)
  --keep                           keep the temp dir (databases, answers, service logs)
  --help
`;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DATABASES = {
  sqlite: ['sqlite'],
  postgres: ['sqlite', 'postgres'],
  'postgres-only': ['postgres'],
};
const FLAGS = ['--quick', '--profile', '--skip-build', '--keep', '--redis', '--help', '-h'];
const VALUED = [
  '--platform',
  '--database',
  '--scenarios',
  '--compare',
  '--repeat',
  '--duration',
  '--warmup',
  '--connections',
  '--sessions',
  '--log-level',
  '--out',
];

export class UsageError extends Error {}

function number(given, name, fallback, { integer = false } = {}) {
  const raw = given[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`${name} needs a positive ${integer ? 'integer' : 'number'} (got ${raw})`);
  }
  return value;
}

/** Options from `--name value`, `--name=value` and flags; anything else is a usage error. */
export function parseOptions(argv) {
  const given = {};
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i]];
    if (FLAGS.includes(name)) given[name] = true;
    else if (!VALUED.includes(name)) throw new UsageError(`unknown option ${argv[i]}`);
    else if ((given[name] = inline ?? argv[++i]) === undefined)
      throw new UsageError(`${name} needs a value`);
  }
  const quick = Boolean(given['--quick']);
  const platform = given['--platform'] ?? 'both';
  if (!['express', 'fastify', 'both'].includes(platform))
    throw new UsageError('--platform: express, fastify or both');
  const database = given['--database'] ?? 'sqlite';
  if (!DATABASES[database])
    throw new UsageError(`--database: ${Object.keys(DATABASES).join(', ')}`);
  const scenarios = given['--scenarios']?.split(',').map((s) => s.trim()) ?? SCENARIO_IDS;
  const unknown = scenarios.filter((s) => !SCENARIO_IDS.includes(s));
  if (unknown.length)
    throw new UsageError(
      `unknown scenario ${unknown.join(', ')} (known: ${SCENARIO_IDS.join(', ')})`,
    );
  const logLevel = given['--log-level'] ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level: ${LOG_LEVELS.join(', ')}`);
  const compare = given['--compare'] ?? null;
  if (compare !== null && given['--profile'])
    throw new UsageError('--compare and --profile: one at a time');
  const duration = number(given, '--duration', quick ? 3 : 10);
  if (!quick && duration < 10)
    throw new UsageError('--duration: at least 10 s (or --quick for a smoke run)');
  return {
    help: Boolean(given['--help'] || given['-h']),
    quick,
    platforms: platform === 'both' ? ['express', 'fastify'] : [platform],
    database,
    databases: DATABASES[database],
    scenarios,
    compare,
    repeat: number(given, '--repeat', 1, { integer: true }),
    duration,
    warmup: number(given, '--warmup', quick ? 1 : 2),
    connections: number(given, '--connections', 50, { integer: true }),
    sessions: number(given, '--sessions', quick ? 20_000 : 100_000, { integer: true }),
    logLevel,
    redis: Boolean(given['--redis']),
    profile: Boolean(given['--profile']),
    out: given['--out'] ?? null,
    skipBuild: Boolean(given['--skip-build']),
    keep: Boolean(given['--keep']),
  };
}
