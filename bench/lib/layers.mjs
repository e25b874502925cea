/**
 * `--layers`: where a request's CPU goes. The service is started once per step, with the
 * pipeline's layers switched on one at a time (MEASURE_WITHOUT, AUTH_MODE, CATALOG_CACHE_TTL_SECONDS
 * and LOG_LEVEL are the service's own settings), and every step is measured like a scenario. A
 * layer's cost is the difference in server CPU microseconds per request from the step before it.
 * Every step runs with NODE_ENV=development: production refuses the switches.
 */

/** Everything MEASURE_WITHOUT can switch off (src/config/app-config.ts, MEASURABLE_LAYERS). */
const ALL_OFF = ['version', 'rate-limit', 'validation-memory'];

const without = (...on) => ALL_OFF.filter((layer) => !on.includes(layer)).join(',');

/**
 * The steps, cumulative: each adds one layer to the one before. `env` is what the service gets on
 * top of the benchmark's usual settings; an empty MEASURE_WITHOUT means every layer on.
 */
export const LAYER_STEPS = [
  {
    id: 'core',
    label: 'core: routing, the pipeline, validation of every query, the database read, no cache',
    env: {
      AUTH_MODE: 'none',
      MEASURE_WITHOUT: without(),
      CATALOG_CACHE_TTL_SECONDS: '0',
      LOG_LEVEL: 'warn',
    },
  },
  {
    id: 'version',
    label: '+ api-version check',
    env: {
      AUTH_MODE: 'none',
      MEASURE_WITHOUT: without('version'),
      CATALOG_CACHE_TTL_SECONDS: '0',
      LOG_LEVEL: 'warn',
    },
  },
  {
    id: 'rate-limit',
    label: '+ rate limits (general and 404, in memory)',
    env: {
      AUTH_MODE: 'none',
      MEASURE_WITHOUT: without('version', 'rate-limit'),
      CATALOG_CACHE_TTL_SECONDS: '0',
      LOG_LEVEL: 'warn',
    },
  },
  {
    id: 'key',
    label: '+ API key (hash, key cache)',
    env: {
      AUTH_MODE: 'api-key',
      MEASURE_WITHOUT: without('version', 'rate-limit'),
      CATALOG_CACHE_TTL_SECONDS: '0',
      LOG_LEVEL: 'warn',
    },
  },
  {
    id: 'validation-memory',
    label: '+ validated queries remembered',
    env: {
      AUTH_MODE: 'api-key',
      MEASURE_WITHOUT: without('version', 'rate-limit', 'validation-memory'),
      CATALOG_CACHE_TTL_SECONDS: '0',
      LOG_LEVEL: 'warn',
    },
  },
  {
    id: 'cache',
    label: '+ catalog cache',
    env: { AUTH_MODE: 'api-key', MEASURE_WITHOUT: '', LOG_LEVEL: 'warn' },
  },
  {
    id: 'logging',
    label: '+ a log line per request (LOG_LEVEL=info, to a file)',
    env: { AUTH_MODE: 'api-key', MEASURE_WITHOUT: '', LOG_LEVEL: 'info' },
  },
];

/** The scenarios --layers measures unless --scenarios says otherwise. */
export const LAYER_SCENARIOS = ['catalog-default', 'status-pending', 'status-unknown'];

/** CPU microseconds of the server per request, from one measurement. */
export function cpuMicrosPerRequest(m) {
  if (!m || m.serverCpuPercent === undefined || !m.rps) return undefined;
  return Math.round(((m.serverCpuPercent / 100) * 1e6) / m.rps);
}

const fmt = (n) => (n === undefined ? '?' : n.toLocaleString('en-US'));
const signed = (n) => (n === undefined ? '?' : `${n > 0 ? '+' : ''}${n.toLocaleString('en-US')}`);

/**
 * The Markdown table of one platform: per scenario, the bare Nest baseline, then each step with
 * its req/s, CPU µs per request and the difference from the step before (the layer's cost).
 */
export function layerTable(platform, scenarios, measured) {
  const lines = [];
  const header = ['step'];
  for (const s of scenarios) header.push(`${s.label}: req/s`, 'CPU µs/req', 'Δ µs');
  lines.push(`| ${platform}: ${header.join(' | ')} |`);
  lines.push(`| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`);
  const rows = [{ id: 'nest', label: `bare Nest + ${platform} (same bytes)` }, ...LAYER_STEPS];
  for (const [index, step] of rows.entries()) {
    const cells = [step.label];
    for (const s of scenarios) {
      const m = measured[step.id]?.[s.id];
      const micros = cpuMicrosPerRequest(m);
      const previous =
        index > 0 ? cpuMicrosPerRequest(measured[rows[index - 1].id]?.[s.id]) : undefined;
      cells.push(
        fmt(m?.rps),
        fmt(micros),
        micros === undefined || previous === undefined ? '' : signed(micros - previous),
      );
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
