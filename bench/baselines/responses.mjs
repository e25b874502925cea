/**
 * The responses a baseline server replays, as captured from the service by bench/run.mjs:
 * `{ platform, routes, statusPrefix, sessions, responses: [{ path, cls, status, statusMessage,
 * headers: [[name, value]], requestIdHeader, body (base64) }] }`. Headers are in the service's
 * order, without date, connection and keep-alive (Node adds them); the value of `requestIdHeader`
 * (x-request-id) is generated per response, as the service does.
 */
import { readFileSync } from 'node:fs';
import { classOfKey } from '../lib/keys.mjs';

export function loadSpec(file) {
  const spec = JSON.parse(readFileSync(file, 'utf8'));
  const responses = spec.responses.map((r) => ({ ...r, body: Buffer.from(r.body, 'base64') }));
  const exact = new Map();
  const byClass = new Map();
  for (const r of responses) {
    if (!exact.has(r.path)) exact.set(r.path, r);
    if (r.cls && !byClass.has(r.cls)) byClass.set(r.cls, r);
  }
  const { statusPrefix, sessions } = spec;
  /**
   * The response for a request URL: the captured one for that exact path and query; for any other
   * status lookup, the captured answer of a key of the same class (its status in the dataset, or
   * unknown), so keys the capture did not ask still get representative bytes.
   */
  const lookup = (url) => {
    const hit = exact.get(url);
    if (hit) return hit;
    if (byClass.size > 0 && url.startsWith(statusPrefix)) {
      return byClass.get(classOfKey(url.slice(statusPrefix.length), sessions));
    }
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
