/** autocannon through its programmatic API, with a hard time limit and a compact result. */
import autocannon from 'autocannon';

let current;

/** Stops the load test in flight, if any (Ctrl-C). */
export function stopLoad() {
  current?.stop();
}

/**
 * One load test on 127.0.0.1. `source` (scenarios.mjs, requestSource) gives the first path and,
 * for scenarios of many paths, `next()`: autocannon then builds every request anew.
 */
export function runLoad({ port, source, headers, connections, durationSeconds }) {
  const options = {
    url: `http://127.0.0.1:${port}${source.firstPath}`,
    connections,
    duration: durationSeconds,
    pipelining: 1,
    timeout: 10,
    headers,
  };
  if (source.next) {
    options.requests = [
      {
        method: 'GET',
        setupRequest: (request) => {
          request.path = source.next();
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

/**
 * Answers that do not match what was asked: with one expected status, every other answer; with
 * a mix (`issued`: expected status → requests handed out), every answer whose status was not
 * expected at all, plus how far each expected status's count is from what was asked. Requests
 * handed out but not answered when the test stops (at most two per connection) are allowed for.
 */
function unexpectedAnswers(statusCodes, expected, issued, connections) {
  if (!issued) {
    const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
    return responses - (statusCodes[expected] ?? 0);
  }
  let unexpected = 0;
  for (const [code, count] of Object.entries(statusCodes)) {
    if (!issued.has(Number(code))) unexpected += count;
  }
  for (const [code, asked] of issued) {
    const answered = statusCodes[code] ?? 0;
    unexpected += Math.max(0, Math.abs(answered - asked) - 2 * connections);
  }
  return unexpected;
}

/** The numbers the report needs from an autocannon result. */
export function summarise(result, { expected, issued, connections }) {
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
  );
  const answered = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    rps: Math.round(result.requests.average),
    rpsMedian: result.requests.p50,
    requests: answered,
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
    ...(issued ? { statusesAsked: Object.fromEntries(issued) } : {}),
    non2xx: result.non2xx,
    unexpectedStatus: unexpectedAnswers(statusCodes, expected, issued, connections),
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
