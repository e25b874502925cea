/**
 * One measurement of one server on one scenario (warm-up, then the measured window) and the
 * median of repeated ones. Besides autocannon's numbers it records, from /proc, the server's CPU
 * time per answered request, its peak RSS (VmHWM) and what else used the machine meanwhile.
 */
import os from 'node:os';
import { runLoad, summarise } from './loadgen.mjs';
import { machineCpu, peakRssKb, resetPeakRss, rssKb, treeCpuTimes } from './processes.mjs';
import { BUSY_MACHINE_PERCENT } from './report.mjs';
import { requestSource } from './scenarios.mjs';

/**
 * Waits (at most `maxSeconds`) until other processes use less than BUSY_MACHINE_PERCENT of a
 * core, sampled over half a second while the servers are idle. Returns the seconds waited.
 */
async function waitForQuietMachine(maxSeconds, log) {
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

const round1 = (n) => Math.round(n * 10) / 10;

/**
 * Warm-up, then the measured window, on `server` ({ child, port, database?, cursors, profileDir?
 * }). `toggleProfiler(server)` starts and stops the service's profiler around the window.
 */
export async function measure(server, scenario, context, { toggleProfiler, log }) {
  const { options, apiKey } = context;
  const waitedForQuiet =
    options.idleWait > 0 ? await waitForQuietMachine(options.idleWait, log) : 0;
  const pid = server.child.pid;
  server.cursors ??= new Map();
  if (!server.cursors.has(scenario.id)) server.cursors.set(scenario.id, { position: 0 });
  const cursor = server.cursors.get(scenario.id);
  const load = { port: server.port, headers: { key: apiKey }, connections: options.connections };
  // The database server works for this service: its CPU is part of the measurement, not noise.
  const database = server.database === 'postgres' ? context.postgres : undefined;
  const loadAverage1 = Math.round(os.loadavg()[0] * 100) / 100;
  const windowed = resetPeakRss(pid);
  await runLoad({
    ...load,
    source: requestSource(scenario, cursor),
    durationSeconds: options.warmup,
  });
  const profiling = Boolean(server.profileDir);
  if (profiling) toggleProfiler(server);
  const source = requestSource(scenario, cursor);
  const cpuBefore = treeCpuTimes(pid);
  const databaseBefore = database?.cpu();
  const machineBefore = machineCpu();
  const ownBefore = process.cpuUsage();
  const wallBefore = process.hrtime.bigint();
  const result = await runLoad({ ...load, source, durationSeconds: options.duration });
  const wall = Number(process.hrtime.bigint() - wallBefore) / 1e9;
  const own = process.cpuUsage(ownBefore);
  const cpuAfter = treeCpuTimes(pid);
  const databaseAfter = database?.cpu();
  const machineAfter = machineCpu();
  if (profiling) toggleProfiler(server);
  const peakKb = peakRssKb(pid) ?? rssKb(pid);
  if (server.child.exitInfo) {
    throw new Error(`${server.child.label} exited during the load test`);
  }
  const summary = summarise(result, {
    expected: scenario.expect,
    issued: source.issued,
    connections: options.connections,
  });
  const share = (seconds) =>
    seconds === undefined || Number.isNaN(seconds)
      ? undefined
      : Math.max(0, Math.round((seconds / wall) * 100));
  const perRequest = (seconds) =>
    seconds === undefined || !summary.requests
      ? undefined
      : round1((seconds * 1e6) / summary.requests);
  const known = cpuBefore && cpuAfter && machineBefore && machineAfter;
  const serverSeconds = known ? cpuAfter.total - cpuBefore.total : undefined;
  const databaseKnown = Boolean(databaseBefore && databaseAfter);
  const databaseSeconds = databaseKnown ? databaseAfter.total - databaseBefore.total : undefined;
  const databaseUser = databaseKnown ? databaseAfter.user - databaseBefore.user : 0;
  return {
    ...summary,
    // utime + stime of the server (and its children, if any) over the requests it answered.
    cpuMicrosPerRequest: perRequest(serverSeconds),
    // Of which in the kernel (socket writes and reads, and loopback delivery to the client).
    cpuSystemMicrosPerRequest: perRequest(known ? cpuAfter.system - cpuBefore.system : undefined),
    peakRssMb: peakKb === undefined ? undefined : round1(peakKb / 1024),
    // Without clear_refs, VmHWM is the peak since the process started.
    peakRssWindow: windowed ? 'measurement' : 'process',
    ...(source.passes ? { listPasses: Math.round(source.passes() * 100) / 100 } : {}),
    waitedForQuietSeconds: waitedForQuiet,
    loadAverage1,
    // Shares of one core: ~100 means that process was the bottleneck.
    serverCpuPercent: share(serverSeconds),
    loadGeneratorCpuPercent: share((own.user + own.system) / 1e6),
    ...(database
      ? {
          databaseCpuPercent: share(databaseSeconds),
          databaseCpuMicrosPerRequest: perRequest(databaseSeconds),
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

export const median = (values) => {
  const sorted = values.filter((v) => v !== undefined && v !== null).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Lowest and highest of the defined values. */
const range = (values) => {
  const defined = values.filter((v) => v !== undefined && v !== null);
  return defined.length ? [Math.min(...defined), Math.max(...defined)] : undefined;
};

function sumCounts(maps) {
  const out = {};
  for (const map of maps) {
    for (const [k, v] of Object.entries(map ?? {})) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/**
 * One measurement, or the median of the repeats (sums for counts, max for RSS), with the range of
 * req/s and CPU per request over the repeats (`spread`).
 */
export function combine(runs) {
  if (!runs || runs.length === 0) return undefined;
  if (runs.length === 1) return runs[0];
  const sum = (f) => runs.reduce((a, r) => a + (f(r) ?? 0), 0);
  return {
    ...runs[0],
    rps: median(runs.map((r) => r.rps)),
    rpsMedian: median(runs.map((r) => r.rpsMedian)),
    requests: sum((r) => r.requests),
    latencyMs: Object.fromEntries(
      Object.keys(runs[0].latencyMs).map((k) => [k, median(runs.map((r) => r.latencyMs[k]))]),
    ),
    statusCodes: sumCounts(runs.map((r) => r.statusCodes)),
    ...(runs[0].statusesAsked
      ? { statusesAsked: sumCounts(runs.map((r) => r.statusesAsked)) }
      : {}),
    non2xx: sum((r) => r.non2xx),
    unexpectedStatus: sum((r) => r.unexpectedStatus),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    cpuMicrosPerRequest: median(runs.map((r) => r.cpuMicrosPerRequest)),
    cpuSystemMicrosPerRequest: median(runs.map((r) => r.cpuSystemMicrosPerRequest)),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb ?? 0)),
    serverCpuPercent: median(runs.map((r) => r.serverCpuPercent)),
    ...(runs[0].databaseCpuPercent !== undefined
      ? {
          databaseCpuPercent: median(runs.map((r) => r.databaseCpuPercent)),
          databaseCpuMicrosPerRequest: median(runs.map((r) => r.databaseCpuMicrosPerRequest)),
        }
      : {}),
    otherProcessesCpuPercent: Math.max(...runs.map((r) => r.otherProcessesCpuPercent ?? 0)),
    stealPercent: Math.max(...runs.map((r) => r.stealPercent ?? 0)),
    spread: {
      rps: range(runs.map((r) => r.rps)),
      cpuMicrosPerRequest: range(runs.map((r) => r.cpuMicrosPerRequest)),
    },
    repeats: runs.map((r) => ({
      rps: r.rps,
      cpuMicrosPerRequest: r.cpuMicrosPerRequest,
      p99: r.latencyMs.p99,
      peakRssMb: r.peakRssMb,
    })),
  };
}

/** One line per measurement, on stderr while the run goes. */
export function formatMeasurement(m) {
  const bad = m.unexpectedStatus + m.errors + m.timeouts;
  const asked = m.statusesAsked
    ? `, statuses ${Object.entries(m.statusCodes)
        .map(([code, n]) => `${code}: ${n}`)
        .join(' ')} (asked ${Object.entries(m.statusesAsked)
        .map(([code, n]) => `${code}: ${n}`)
        .join(' ')})`
    : `, non-2xx ${m.non2xx}`;
  return (
    `${m.rps.toLocaleString('en-US')} req/s, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms, ` +
    `CPU ${m.cpuMicrosPerRequest ?? '?'} µs/req (kernel ${m.cpuSystemMicrosPerRequest ?? '?'})` +
    ('databaseCpuMicrosPerRequest' in m
      ? ` + PostgreSQL ${m.databaseCpuMicrosPerRequest ?? '?'} µs/req`
      : '') +
    `${asked}, errors ${m.errors + m.timeouts}, peak RSS ${m.peakRssMb} MB, ` +
    `CPU server ${m.serverCpuPercent ?? '?'}% / autocannon ${m.loadGeneratorCpuPercent}%` +
    ('databaseCpuPercent' in m ? ` / PostgreSQL ${m.databaseCpuPercent ?? '?'}%` : '') +
    (m.listPasses !== undefined ? `, key list ×${m.listPasses}` : '') +
    (m.otherProcessesCpuPercent > BUSY_MACHINE_PERCENT
      ? `  <-- other processes used ${m.otherProcessesCpuPercent}% CPU`
      : '') +
    (m.stealPercent > BUSY_MACHINE_PERCENT
      ? `  <-- ${m.stealPercent}% CPU stolen by the host`
      : '') +
    (bad > 0 ? `  <-- ${m.unexpectedStatus} unexpected statuses` : '')
  );
}
