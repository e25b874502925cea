/**
 * What a baseline answers: the service's own answers, captured by bench/run.mjs before measuring,
 * `{ platform, apiKey, catalogPath, statusPath, otherStatus, answers: [{ path, status, headers:
 * [[name, value]], body (base64) }] }`; each header gets a third entry, true for x-request-id. Headers are in the service's order, without those Node
 * writes itself (Date, Connection, Keep-Alive); x-request-id gets a fresh UUID per answer, as the
 * service makes one. A status lookup of a key that was not captured gets the answer of
 * `otherStatus` (a PENDING key): the distinct-keys scenario asks only PENDING keys, whose answers
 * are the same bytes.
 */
import { readFileSync } from 'node:fs';

export function loadReplay(file) {
  const spec = JSON.parse(readFileSync(file, 'utf8'));
  const byPath = new Map();
  for (const answer of spec.answers) {
    answer.body = Buffer.from(answer.body, 'base64');
    answer.value = JSON.parse(answer.body.toString('utf8'));
    answer.headers = answer.headers
      .filter(([name]) => name.toLowerCase() !== 'content-length')
      .map(([name, value]) => [name, value, name.toLowerCase() === 'x-request-id']);
    byPath.set(answer.path, answer);
  }
  const other = byPath.get(spec.otherStatus);
  /** The captured answer for a request URL (path and query), or undefined. */
  const lookup = (url) => byPath.get(url) ?? (url.startsWith(spec.statusPath) ? other : undefined);
  return { ...spec, lookup };
}

/** Ends the process when the benchmark stops it or goes away. */
export function exitWithParent() {
  for (const name of ['SIGTERM', 'SIGINT', 'disconnect']) process.on(name, () => process.exit(0));
}

export const listening = (name, port) => process.stdout.write(`LISTENING ${name} ${port}\n`);
