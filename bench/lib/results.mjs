/**
 * bench/results.json: the latest complete result per database, dataset size and platform (the
 * reference of a 1,000,000-session run), and a compact history of every written run, one line
 * each, so the file stays small however many runs it has seen.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { floorOf } from './report.mjs';

const FORMAT = 2;
/** History lines kept (the oldest go first). */
const HISTORY_LIMIT = 400;

const round1 = (n) => (n === undefined || n === null ? undefined : Math.round(n * 10) / 10);

/** A measurement without what only the printed report needs. */
function compactMeasurement(m) {
  if (!m) return undefined;
  return {
    rps: m.rps,
    latencyMs: { p50: m.latencyMs.p50, p99: m.latencyMs.p99, max: m.latencyMs.max },
    cpuMicrosPerRequest: m.cpuMicrosPerRequest,
    ...(m.databaseCpuMicrosPerRequest !== undefined
      ? { databaseCpuMicrosPerRequest: m.databaseCpuMicrosPerRequest }
      : {}),
    peakRssMb: m.peakRssMb,
    statusCodes: m.statusCodes,
    ...(m.statusesAsked ? { statusesAsked: m.statusesAsked } : {}),
    unexpectedStatus: m.unexpectedStatus,
    errors: m.errors + m.timeouts,
    otherProcessesCpuPercent: m.otherProcessesCpuPercent,
    ...(m.spread ? { spread: m.spread } : {}),
  };
}

export function compactResult(result) {
  if (result?.status !== 'measured') return result;
  return {
    status: result.status,
    peakRssMb: result.peakRssMb,
    scenarios: result.scenarios.map((s) => ({
      id: s.id,
      label: s.label,
      extra: s.extra,
      responseBytes: s.responseBytes,
      service: compactMeasurement(s.service),
      ...(s.ref ? { ref: compactMeasurement(s.ref) } : {}),
      raw: compactMeasurement(s.raw),
      nest: compactMeasurement(s.nest),
      floorMicros: s.floorMicros,
      floorRatio: s.floorRatio,
    })),
  };
}

/** One history line: per scenario the service's req/s, CPU µs/req, p99, peak RSS, × floor. */
function historyEntry(run, database, platform, result) {
  const scenarios = {};
  for (const s of result.scenarios ?? []) {
    const m = s.service;
    if (!m) continue;
    scenarios[s.id] = {
      rps: m.rps,
      cpu: round1(m.cpuMicrosPerRequest),
      p99: m.latencyMs?.p99,
      rss: m.peakRssMb === undefined ? undefined : Math.round(m.peakRssMb),
      floor: s.floorRatio,
      ...(s.ref ? { refRps: s.ref.rps, refCpu: round1(s.ref.cpuMicrosPerRequest) } : {}),
    };
  }
  return {
    date: run.date,
    commit: run.commit ? run.commit.slice(0, 12) : undefined,
    ...(run.dirty ? { dirty: true } : {}),
    command: run.command,
    database,
    sessions: run.options.sessions,
    platform,
    logLevel: run.options.logLevel,
    ...(run.compare ? { ref: run.compare.ref, refCommit: run.compare.commit.slice(0, 12) } : {}),
    machine: `${run.machine.cpuModel} ×${run.machine.cpus}, load ${run.machine.loadAverage?.[0] ?? '?'}`,
    scenarios,
    targets: Object.fromEntries(
      (run.targets ?? [])
        .filter((t) => t.platform === platform && t.database === database)
        .map((t) => [t.target.replace(/^[^:]*: /, ''), t.verdict]),
    ),
  };
}

/** Results written before this format: `byDatabase` (or `bySessions`, SQLite only). */
function fromFormat1(previous) {
  const byDatabase =
    previous.byDatabase ?? (previous.bySessions ? { sqlite: previous.bySessions } : {});
  const runs = {};
  const history = [];
  for (const [database, bySessions] of Object.entries(byDatabase)) {
    for (const [sessions, byPlatform] of Object.entries(bySessions)) {
      for (const [platform, entry] of Object.entries(byPlatform)) {
        // Those runs recorded CPU as a share of a core: per request it is share / req/s.
        const withCpu = (m) =>
          m && m.serverCpuPercent !== undefined && m.rps
            ? { ...m, cpuMicrosPerRequest: round1((m.serverCpuPercent * 1e4) / m.rps) }
            : m;
        const result = {
          ...entry.result,
          scenarios: entry.result.scenarios.map((s) => {
            const service = withCpu(s.service);
            const raw = withCpu(s.raw);
            const nest = withCpu(s.nest);
            return { ...s, service, raw, nest, ...floorOf(service, raw, nest) };
          }),
        };
        runs[`${database}/${sessions}/${platform}`] = {
          date: entry.date,
          command: entry.command,
          options: entry.options,
          cpuFrom: 'CPU share of one core ÷ req/s (recorded before CPU per request was)',
          result: compactResult(result),
        };
        history.push(
          historyEntry(
            {
              date: entry.date,
              command: entry.command,
              options: { ...entry.options, sessions: Number(sessions) },
              machine: previous.latest?.machine ?? { cpuModel: '?', cpus: '?' },
            },
            database,
            platform,
            result,
          ),
        );
      }
    }
  }
  history.sort((a, b) => a.date.localeCompare(b.date));
  return { format: FORMAT, runs, history };
}

/** The results file, in this format whatever format it was written in ({} when absent). */
export function readResults(file) {
  let previous;
  try {
    previous = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { format: FORMAT, runs: {}, history: [] };
  }
  if (previous.format === FORMAT) return previous;
  return fromFormat1(previous);
}

/** The last complete result per platform for `database` and `sessions`: { platform: run }. */
export function latestRuns(results, database, sessions) {
  const out = {};
  for (const [key, entry] of Object.entries(results.runs ?? {})) {
    const [db, size, platform] = key.split('/');
    if (db === database && Number(size) === sessions) out[platform] = entry;
  }
  return out;
}

/**
 * Adds `run` to `results`: a history line per database and platform, and, for a complete run
 * (every scenario, not quick, not profiled, not a comparison), its results as the latest of their
 * database, dataset size and platform.
 */
export function addRun(results, run, { complete }) {
  const next = { format: FORMAT, runs: { ...results.runs }, history: [...results.history] };
  for (const [database, { dataset, platforms }] of Object.entries(run.databases)) {
    for (const [platform, result] of Object.entries(platforms)) {
      if (result.status !== 'measured') continue;
      next.history.push(historyEntry(run, database, platform, result));
      if (!complete) continue;
      next.runs[`${database}/${run.options.sessions}/${platform}`] = {
        date: run.date,
        command: run.command,
        commit: run.commit,
        dirty: run.dirty,
        machine: run.machine,
        loadAverageAtEnd: run.loadAverageAtEnd,
        node: run.node,
        autocannon: run.autocannon,
        ...(database === 'postgres' && run.postgres ? { postgres: run.postgres } : {}),
        options: run.options,
        dataset,
        targets: run.targets.filter((t) => t.platform === platform && t.database === database),
        result: compactResult(result),
      };
    }
  }
  next.history = next.history.slice(-HISTORY_LIMIT);
  return next;
}

/** A run's JSON: one field per line, and in its result one scenario per line. */
function runText(run) {
  const fields = Object.entries(run)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      if (key !== 'result' || value?.status !== 'measured') {
        return `      ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
      }
      const { scenarios, ...rest } = value;
      const head = Object.entries(rest).map(
        ([k, v]) => `        ${JSON.stringify(k)}: ${JSON.stringify(v)}`,
      );
      const lines = scenarios.map((scenario) => `          ${JSON.stringify(scenario)}`);
      return [
        '      "result": {',
        `${head.join(',\n')},`,
        '        "scenarios": [',
        lines.join(',\n'),
        '        ]',
        '      }',
      ].join('\n');
    });
  return `{\n${fields.join(',\n')}\n    }`;
}

/** Writes the file: runs a field per line, each history entry on one line. */
export function writeResults(file, results) {
  const runs = Object.entries(results.runs).map(
    ([key, run]) => `    ${JSON.stringify(key)}: ${runText(run)}`,
  );
  const text = [
    '{',
    `  "format": ${FORMAT},`,
    '  "runs": {',
    runs.join(',\n'),
    '  },',
    '  "history": [',
    results.history.map((entry) => `    ${JSON.stringify(entry)}`).join(',\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
  JSON.parse(text); // never write a file the next run cannot read
  writeFileSync(file, text);
}
