/**
 * Before measuring: each scenario's answers are checked (status, and for status lookups the
 * status in the body), and one answer per replay is captured, for the baselines to replay and
 * for comparing databases, builds and baselines byte for byte.
 */
import { httpGet } from './processes.mjs';

/** Headers Node writes itself on every response; not part of what the baselines replay. */
const NODE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A captured answer as the baselines replay it (baselines/responses.mjs). */
export function toReplay(replay, res) {
  const headers = [];
  let requestIdHeader = null;
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i];
    const lower = name.toLowerCase();
    if (NODE_HEADERS.has(lower)) continue;
    if (lower === 'x-request-id') requestIdHeader = name;
    headers.push([name, res.rawHeaders[i + 1]]);
  }
  return {
    id: replay.id,
    path: replay.path,
    cls: replay.cls ?? null,
    status: res.status,
    statusMessage: res.statusMessage,
    headers,
    requestIdHeader,
    body: res.body.toString('base64'),
  };
}

function comparableHeaders(rawHeaders) {
  const map = new Map();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i].toLowerCase();
    if (NODE_HEADERS.has(lower) && lower !== 'transfer-encoding') continue;
    let value = rawHeaders[i + 1];
    if (lower === 'x-request-id' && UUID.test(value)) value = '<uuid>';
    map.set(lower, map.has(lower) ? `${map.get(lower)}, ${value}` : value);
  }
  return map;
}

/** How `actual` differs from the `expected` response (empty when identical). */
export function differences(expected, actual, name = 'service') {
  const out = [];
  if (expected.status !== actual.status)
    out.push(`status ${actual.status}, ${name} ${expected.status}`);
  if (!expected.body.equals(actual.body)) {
    out.push(`body differs (${actual.body.length} bytes, ${name} ${expected.body.length})`);
  }
  const want = comparableHeaders(expected.rawHeaders);
  const got = comparableHeaders(actual.rawHeaders);
  for (const [header, value] of want) {
    if (!got.has(header)) out.push(`header ${header} missing`);
    else if (got.get(header) !== value)
      out.push(`header ${header}: "${got.get(header)}", ${name} "${value}"`);
  }
  for (const header of got.keys()) if (!want.has(header)) out.push(`extra header ${header}`);
  return out;
}

/** The `status` of a status answer's payload, if the body is one. */
function payloadStatus(body) {
  try {
    return JSON.parse(body.toString('utf8')).payload?.[0]?.status;
  } catch {
    return undefined;
  }
}

/** Requests whose answers are checked: each replay, and a sample of a scenario's other keys. */
function checks(scenario) {
  const list = scenario.replays.map((r) => ({ ...r }));
  if (scenario.sameBody) {
    for (const path of scenario.paths.slice(1, 25)) list.push({ path, expect: scenario.expect });
  }
  if (scenario.mixed) {
    const { paths, classes, expected } = scenario.list;
    const perClass = new Map();
    for (let i = 0; i < paths.length && perClass.size < 5 * 10; i++) {
      const n = perClass.get(classes[i]) ?? 0;
      if (n >= 10) continue;
      perClass.set(classes[i], n + 1);
      list.push({ path: paths[i], expect: expected[i], cls: classes[i] });
    }
  }
  return list;
}

/**
 * Checks each scenario's answers (status; the payload's status for a key of a known class; one
 * body for scenarios that replay one) and captures, per replay, its answer after one warm request.
 * Returns replay id → response.
 */
export async function captureScenarios(service, scenarios, apiKey) {
  const headers = { key: apiKey };
  const captured = new Map();
  for (const scenario of scenarios) {
    let first;
    for (const check of checks(scenario)) {
      const res = await httpGet(service.port, check.path, headers);
      const text = () => res.body.toString('utf8').slice(0, 300);
      if (res.status !== check.expect) {
        throw new Error(
          `${scenario.label}: GET ${check.path} answered ${res.status}, expected ${check.expect}: ${text()}`,
        );
      }
      if (check.cls && check.cls !== 'unknown' && payloadStatus(res.body) !== check.cls) {
        throw new Error(
          `${scenario.label}: GET ${check.path} answered status ${payloadStatus(res.body)}, expected ${check.cls}: ${text()}`,
        );
      }
      if (scenario.sameBody) {
        first ??= res;
        if (!res.body.equals(first.body)) {
          throw new Error(`${scenario.label}: the sampled keys do not all answer the same body`);
        }
      }
    }
    for (const replay of scenario.replays) {
      captured.set(replay.id, await httpGet(service.port, replay.path, headers));
    }
  }
  return captured;
}

/** Differences between `server`'s answers and the `captured` ones, for every replay. */
export async function compareAnswers(server, scenarios, captured, apiKey, name) {
  const found = [];
  for (const scenario of scenarios) {
    for (const replay of scenario.replays) {
      const res = await httpGet(server.port, replay.path, { key: apiKey });
      for (const d of differences(captured.get(replay.id), res, name)) {
        found.push(`${server.child.label}, ${scenario.label} (${replay.id}): ${d}`);
      }
    }
  }
  return found;
}

/** Differences between two captures of the same replays (two databases, two builds). */
export function compareCaptures(scenarios, expected, actual, name) {
  const found = [];
  for (const scenario of scenarios) {
    for (const replay of scenario.replays) {
      for (const d of differences(expected.get(replay.id), actual.get(replay.id), name)) {
        found.push(`${scenario.label} (${replay.id}): ${d}`);
      }
    }
  }
  return found;
}
