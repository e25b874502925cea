/**
 * The responses a baseline server replays, as captured from the service by bench/run.mjs:
 * `{ platform, routes, responses: [{ path, prefix?, status, statusMessage, headers: [[name, value]],
 * requestIdHeader, body (base64) }] }`. Headers are in the service's order, without date,
 * connection and keep-alive (Node adds them); the value of `requestIdHeader` (x-request-id) is
 * generated per response, as the service does.
 */
import { readFileSync } from 'node:fs';

export function loadSpec(file) {
  const spec = JSON.parse(readFileSync(file, 'utf8'));
  const responses = spec.responses.map((r) => ({ ...r, body: Buffer.from(r.body, 'base64') }));
  const exact = new Map();
  const prefixed = [];
  for (const r of responses) {
    if (r.prefix) prefixed.push(r);
    else exact.set(r.path, r);
  }
  /** The response for a request URL: exact path and query first, then a path prefix. */
  const lookup = (url) => {
    const hit = exact.get(url);
    if (hit) return hit;
    for (const r of prefixed) if (url.startsWith(r.prefix)) return r;
    return undefined;
  };
  return { ...spec, responses, lookup };
}

/** Ends the process when the benchmark that started it goes away. */
export function exitWithParent() {
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}
