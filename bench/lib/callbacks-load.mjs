/**
 * The read load of bench/callbacks.mjs and what it measures in a time window. runLoad
 * (loadgen.mjs) reports a whole run; a burst's window is only known once the burst is over, so
 * here the same autocannon load (same options as runLoad) counts every answer and its latency as
 * it comes, and a sampler notes every 250 ms the answers so far and the CPU time of the processes
 * involved. Any window of the run (the overlap with a burst) is then measured after the fact.
 */
import autocannon from 'autocannon';
import { cpuTimes, machineCpu, rssKb } from './processes.mjs';

let current;

/** Stops the load in flight, if any (Ctrl-C, errors). */
export function stopReadLoad() {
  current?.stop();
}

/**
 * Starts autocannon on 127.0.0.1 for at most `maxSeconds`, as runLoad does. Returns
 * { answers, stop() → Promise<autocannon result>, done }: `answers.ok` counts 2xx answers,
 * `answers.other` the rest, `answers.latencies` every 2xx latency (ms) in arrival order (Latencies).
 */
/** Latencies as 4-byte floats in a growing buffer: a long burst window holds millions. */
export class Latencies {
  constructor() {
    this.buffer = new Float32Array(1 << 16);
    this.length = 0;
  }

  push(ms) {
    if (this.length === this.buffer.length) {
      const bigger = new Float32Array(this.buffer.length * 2);
      bigger.set(this.buffer);
      this.buffer = bigger;
    }
    this.buffer[this.length++] = ms;
  }

  /** The latencies recorded between two lengths, sorted. */
  sorted(from, to) {
    return this.buffer.slice(from, to).sort();
  }
}

export function startReadLoad({ port, paths, headers, connections, maxSeconds }) {
  const answers = { ok: 0, other: 0, latencies: new Latencies() };
  let instance;
  const done = new Promise((resolve, reject) => {
    const limit = setTimeout(
      () => {
        instance.stop();
        reject(new Error(`load test did not finish within ${maxSeconds + 30} s`));
      },
      (maxSeconds + 30) * 1000,
    );
    instance = autocannon(
      {
        url: `http://127.0.0.1:${port}${paths[0]}`,
        connections,
        duration: maxSeconds,
        pipelining: 1,
        timeout: 10,
        headers,
      },
      (error, result) => {
        clearTimeout(limit);
        if (current === instance) current = undefined;
        if (error) reject(error);
        else resolve(result);
      },
    );
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) {
      answers.ok++;
      answers.latencies.push(responseTime);
    } else {
      answers.other++;
    }
  });
  current = instance;
  return {
    answers,
    done,
    stop() {
      instance.stop();
      return done;
    },
  };
}

/**
 * Every `intervalMs`: the time, the answers so far, the CPU seconds of each process of `pids()`
 * ({ name: pid }, read anew each time: the burst process comes and goes), of this process and
 * of the machine, and the service's RSS.
 */
export function startSampler({ answers, pids, servicePid, intervalMs = 250 }) {
  const samples = [];
  const sample = () => {
    const cpu = {};
    for (const [name, pid] of Object.entries(pids())) {
      if (pid !== undefined) cpu[name] = cpuTimes(pid);
    }
    const own = process.cpuUsage();
    samples.push({
      at: Date.now(),
      ok: answers.ok,
      other: answers.other,
      latencyIndex: answers.latencies.length,
      cpu,
      own: { user: own.user / 1e6, total: (own.user + own.system) / 1e6 },
      machine: machineCpu(),
      rssKb: rssKb(servicePid),
    });
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      sample();
      return samples;
    },
  };
}

const tenth = (x) => (x === undefined ? undefined : Math.round(x * 10) / 10);

const percentile = (sorted, p) =>
  sorted.length === 0
    ? undefined
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * What the samples say about [from, to] (epoch ms), narrowed to the samples inside it: read
 * answers per second, 2xx latency percentiles, each process's CPU as % of one core, every other
 * process's user CPU, the service's peak RSS.
 */
export function windowStats(samples, answers, from, to) {
  const inside = samples.filter((s) => s.at >= from && s.at <= to);
  if (inside.length < 2) return { seconds: 0 };
  const a = inside[0];
  const b = inside[inside.length - 1];
  const seconds = (b.at - a.at) / 1000;
  const share = (x) => (x === undefined ? undefined : Math.round((x / seconds) * 100));
  const cpu = {};
  let knownUser = b.own.user - a.own.user;
  for (const name of Object.keys(b.cpu).concat(Object.keys(a.cpu))) {
    if (name in cpu) continue;
    // A process that ended inside the window: its last sample.
    const first = inside.find((s) => s.cpu[name])?.cpu[name];
    const last = inside.findLast((s) => s.cpu[name])?.cpu[name];
    if (!first || !last) continue;
    cpu[name] = share(last.total - first.total);
    knownUser += last.user - first.user;
  }
  cpu.loadGenerator = share(b.own.total - a.own.total);
  const latencies = answers.latencies.sorted(a.latencyIndex, b.latencyIndex);
  return {
    from: a.at,
    to: b.at,
    seconds: Math.round(seconds * 100) / 100,
    rps: Math.round((b.ok - a.ok) / seconds),
    answers: b.ok - a.ok,
    non2xx: b.other - a.other,
    latencyMs: {
      p50: tenth(percentile(latencies, 50)),
      p99: tenth(percentile(latencies, 99)),
      max: tenth(latencies[latencies.length - 1]),
    },
    cpuPercent: cpu,
    otherProcessesCpuPercent:
      a.machine && b.machine
        ? Math.max(0, share(b.machine.user - a.machine.user - knownUser))
        : undefined,
    stealPercent: a.machine && b.machine ? share(b.machine.steal - a.machine.steal) : undefined,
    peakRssMb: Math.round((Math.max(...inside.map((s) => s.rssKb ?? 0)) / 1024) * 10) / 10,
  };
}
