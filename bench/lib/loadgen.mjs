/** autocannon through its programmatic API, with a hard time limit and a compact result. */
import autocannon from 'autocannon';

let current;

/** Stops the load test in flight, if any (Ctrl-C). */
export function stopLoad() {
  current?.stop();
}

/**
 * One load test on 127.0.0.1. `paths` holds one path, or several to pick from at random per
 * request (autocannon then builds every request anew).
 */
export function runLoad({ port, paths, headers, connections, durationSeconds }) {
  const options = {
    url: `http://127.0.0.1:${port}${paths[0]}`,
    connections,
    duration: durationSeconds,
    pipelining: 1,
    timeout: 10,
    headers,
  };
  if (paths.length > 1) {
    options.requests = [
      {
        method: 'GET',
        setupRequest: (request) => {
          request.path = paths[Math.floor(Math.random() * paths.length)];
          return request;
        },
      },
    ];
  }
  return new Promise((resolve, reject) => {
    const limit = setTimeout(
      () => {
        instance.stop();
        reject(new Error(`load test did not finish within ${durationSeconds + 30} s`));
      },
      (durationSeconds + 30) * 1000,
    );
    const instance = autocannon(options, (error, result) => {
      clearTimeout(limit);
      current = undefined;
      if (error) reject(error);
      else resolve(result);
    });
    current = instance;
  });
}

/** The numbers the report needs from an autocannon result. */
export function summarise(result, expectedStatus) {
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
  );
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    rps: Math.round(result.requests.average),
    rpsMedian: result.requests.p50,
    requests: result.requests.total,
    durationSeconds: result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      average: result.latency.average,
      max: result.latency.max,
    },
    throughputMBps: Math.round((result.throughput.average / 1e6) * 100) / 100,
    statusCodes,
    non2xx: result.non2xx,
    unexpectedStatus: responses - (statusCodes[expectedStatus] ?? 0),
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
