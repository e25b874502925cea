/** Command-line options of bench/callbacks.mjs. */
import {
  UsageError,
  logLevelOption,
  platformsOption,
  positiveInteger,
  positiveNumber,
  splitArgv,
} from './options.mjs';

export { UsageError };

export const CALLBACKS_USAGE = `usage: npm run bench:callbacks -- [options]     (or: node bench/callbacks.mjs [options])

  --platform express|fastify|both   HTTP platform(s) of the service (default both)
  --transitions <n>                 transitions per burst (default 10000); one burst per read
                                    scenario, each on sessions of its own
  --concurrency <n>                 operator PUTs in flight during a burst (default 50)
  --connections <n>                 autocannon connections of the read load (default 50)
  --duration <s>                    measured seconds of each read scenario without a burst
                                    (default 10; --quick 3)
  --warmup <s>                      warm-up seconds before each measurement (default 2; --quick 1)
  --log-level <level>               LOG_LEVEL of the service (default warn, as npm run bench)
  --quick                           smoke run: short defaults, 500 transitions unless
                                    --transitions is given, results not written
  --skip-build                      do not run npm run build first
  --keep                            keep the temp dir (database, logs, burst records)
  --help
`;

export function parseCallbackOptions(argv) {
  const given = splitArgv(argv, {
    flags: ['--quick', '--skip-build', '--keep', '--help', '-h'],
    valued: [
      '--platform',
      '--transitions',
      '--concurrency',
      '--connections',
      '--duration',
      '--warmup',
      '--log-level',
    ],
  });
  const quick = Boolean(given['--quick']);
  const get = (name, fallback, integer = true) =>
    given[name] === undefined
      ? fallback
      : (integer ? positiveInteger : positiveNumber)(name, given[name]);
  return {
    help: Boolean(given['--help'] || given['-h']),
    platforms: platformsOption(given),
    transitions: get('--transitions', quick ? 500 : 10_000),
    concurrency: get('--concurrency', 50),
    connections: get('--connections', 50),
    duration: get('--duration', quick ? 3 : 10, false),
    warmup: get('--warmup', quick ? 1 : 2, false),
    logLevel: logLevelOption(given),
    quick,
    skipBuild: Boolean(given['--skip-build']),
    keep: Boolean(given['--keep']),
  };
}
