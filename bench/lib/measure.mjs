/**
 * One measurement: autocannon on 127.0.0.1 against one server (or, for writes on PostgreSQL, two
 * instances with the connections split between them), a warm-up, then the measured window. The
 * server's CPU comes from /proc/<pid>/stat (utime + stime before and after the window) divided by
 * the requests it answered (reads) or acknowledged (writes); peak RSS is VmHWM, reset before the
 * warm-up. Also recorded: PostgreSQL's CPU, and what every other process on the machine used (a
 * measurement where that is not near 0 is flagged).
 */
import autocannon from 'autocannon';
import { cpuSeconds, machineUserSeconds, peakRssMb, resetPeakRss } from './processes.mjs';

/** Other processes' CPU (share of one core) above which a measurement is flagged. */
export const BUSY_PERCENT = 10;

const running = new Set();
export const stopLoad = () => running.forEach((instance) => instance.stop());

/**
 * Autocannon against each of `ports` for `seconds`, the connections split between them. `request`:
 * `{ method, headers, body, path }` for one path, or with `next()` giving each request's path (the
 * request is then built anew each time, which costs the load generator more) and `nextBody()`
 * each one's body. With several ports
 * the latencies are taken from every response, so the percentiles cover all of them.
 */
async function load(ports, { connections, seconds, request }) {
  const latencies = ports.length > 1 ? [] : undefined;
  const results = await Promise.all(
    ports.map(
      (port, i) =>
        new Promise((resolve, reject) => {
          const instance = autocannon(
            {
              url: `http://127.0.0.1:${port}`,
              connections:
                Math.floor(connections / ports.length) + (i < connections % ports.length ? 1 : 0),
              duration: seconds,
              timeout: 10,
              headers: request.headers,
              requests: [
                request.next
                  ? {
                      method: request.method ?? 'GET',
                      body: request.body,
                      setupRequest: (req) => ({
                        ...req,
                        path: request.next(),
                        ...(request.nextBody ? { body: request.nextBody() } : {}),
                      }),
                    }
                  : { method: 'GET', path: request.path },
              ],
            },
            (error, result) => {
              running.delete(instance);
              if (error) reject(error);
              else resolve(result);
            },
          );
          running.add(instance);
          if (latencies)
            instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
        }),
    ),
  );
  const statusCodes = {};
  for (const result of results) {
    for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) {
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
    }
  }
  let p50 = results[0].latency.p50;
  let p99 = results[0].latency.p99;
  if (latencies) {
    latencies.sort((a, b) => a - b);
    const at = (q) =>
      Math.round(
        latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 100,
      ) / 100;
    [p50, p99] = [at(0.5), at(0.99)];
  }
  return {
    statusCodes,
    answered: Object.values(statusCodes).reduce((a, b) => a + b, 0),
    errors: results.reduce((a, r) => a + r.errors + r.timeouts, 0),
    p50,
    p99,
  };
}

const sum = (values) => values.reduce((a, b) => a + b, 0);
const round1 = (n) => (n === undefined || Number.isNaN(n) ? undefined : Math.round(n * 10) / 10);

/**
 * Warm-up, then the measured window, on `servers` ([{ child, port }]). `scenario.request` makes
 * the requests; `scenario.ok` is the status that counts (200 for reads: every other answer is
 * reported; 201 for writes: acknowledged). `postgres`: the cluster whose CPU to record;
 * `window`: `{ start(), stop() }` called around the measured window (the profiler).
 */
export async function measure(servers, scenario, { options, postgres, window }) {
  const pids = servers.map((s) => s.child.pid);
  pids.forEach(resetPeakRss);
  const request = scenario.request(servers[0]);
  const shape = { connections: options.connections, request };
  await load(
    servers.map((s) => s.port),
    { ...shape, seconds: options.warmup },
  );
  const cpu = () => pids.map(cpuSeconds);
  window?.start();
  const before = {
    cpu: cpu(),
    pg: postgres?.cpu(),
    machine: machineUserSeconds(),
    own: process.cpuUsage(),
  };
  const started = process.hrtime.bigint();
  const result = await load(
    servers.map((s) => s.port),
    { ...shape, seconds: options.duration },
  );
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const after = {
    cpu: cpu(),
    pg: postgres?.cpu(),
    machine: machineUserSeconds(),
    own: process.cpuUsage(before.own),
  };
  window?.stop();
  for (const s of servers) {
    if (s.child.exitInfo) throw new Error(`${s.child.label} exited during the measurement`);
  }
  const counted = result.statusCodes[scenario.ok] ?? 0;
  const serverSeconds = sum(pids.map((_, i) => after.cpu[i].total - before.cpu[i].total));
  const serverUser = sum(pids.map((_, i) => after.cpu[i].user - before.cpu[i].user));
  const pgSeconds = postgres ? after.pg.total - before.pg.total : 0;
  const others =
    after.machine -
    before.machine -
    serverUser -
    after.own.user / 1e6 -
    (postgres ? after.pg.user - before.pg.user : 0);
  return {
    perSecond: Math.round(counted / wall),
    counted,
    answered: result.answered,
    failed: result.answered - counted + result.errors,
    statusCodes: result.statusCodes,
    p50: result.p50,
    p99: result.p99,
    cpuMicros: counted ? round1((serverSeconds * 1e6) / counted) : undefined,
    ...(postgres
      ? { postgresCpuMicros: counted ? round1((pgSeconds * 1e6) / counted) : undefined }
      : {}),
    peakRssMb: Math.max(...pids.map((pid) => peakRssMb(pid) ?? 0)),
    serverCpuPercent: Math.round((serverSeconds / wall) * 100),
    loadGeneratorCpuPercent: Math.round(((after.own.user + after.own.system) / 1e6 / wall) * 100),
    otherCpuPercent: Math.max(0, Math.round((others / wall) * 100)),
  };
}

export function median(values) {
  const sorted = values.filter((v) => v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The repeats of one measurement: medians, the range of CPU and throughput, sums of counts. */
export function combine(runs) {
  if (!runs?.length) return undefined;
  const pick = (field) => runs.map((r) => r[field]);
  const range = (field) => {
    const v = pick(field).filter((x) => x !== undefined);
    return v.length ? [Math.min(...v), Math.max(...v)] : undefined;
  };
  const statusCodes = {};
  for (const r of runs) {
    for (const [code, n] of Object.entries(r.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + n;
  }
  const out = {
    repeats: runs.length,
    statusCodes,
    spread: { cpuMicros: range('cpuMicros'), perSecond: range('perSecond') },
  };
  for (const field of [
    'perSecond',
    'p50',
    'p99',
    'cpuMicros',
    'postgresCpuMicros',
    'serverCpuPercent',
    'loadGeneratorCpuPercent',
  ]) {
    if (runs[0][field] !== undefined) out[field] = round1(median(pick(field)));
  }
  for (const field of ['counted', 'answered', 'failed']) out[field] = sum(pick(field));
  out.peakRssMb = Math.max(...pick('peakRssMb'));
  out.otherCpuPercent = Math.max(...pick('otherCpuPercent'));
  return out;
}

/** The live line of one measurement, on stderr. */
export function formatMeasurement(m, unit) {
  return (
    `${m.perSecond.toLocaleString('en-US')} ${unit}/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ` +
    `CPU ${m.cpuMicros ?? '?'} µs/${unit}` +
    (m.postgresCpuMicros !== undefined ? ` + PostgreSQL ${m.postgresCpuMicros}` : '') +
    `, peak RSS ${m.peakRssMb} MB, CPU server ${m.serverCpuPercent}% / autocannon ${m.loadGeneratorCpuPercent}%` +
    (m.failed ? `  <-- ${m.failed} failed (${JSON.stringify(m.statusCodes)})` : '') +
    (m.otherCpuPercent > BUSY_PERCENT ? `  <-- other processes used ${m.otherCpuPercent}% CPU` : '')
  );
}
