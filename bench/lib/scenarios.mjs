/**
 * What each scenario asks for. Most ask for one path; `status-pending-random` picks among many
 * PENDING keys; `status-distinct` walks a list of distinct keys in the mix of statuses merchants
 * ask about, each key twice (LOOKUP_MIX, REASK_BLOCK_KEYS).
 */
import { FILTER_COUNTRY } from './dataset.mjs';
import {
  STATUS_PREFIX,
  indexOfStatus,
  indexWithStatus,
  sessionsPerStatus,
  validationKeyOf,
} from './keys.mjs';

export const CATALOG_PATH = '/api/crypto-currency-protocol-processors';

/**
 * Share of each kind of key in `status-distinct`: mostly final sessions (their answers never
 * change), some still open, a few keys that do not exist. Written down in bench/README.md.
 */
export const LOOKUP_MIX = {
  SUCCESSFUL: 0.7,
  FAILED: 0.1,
  PENDING: 0.1,
  NOT_COMPLETED: 0.08,
  unknown: 0.02,
};

/**
 * Keys per block of the `status-distinct` list: a block asks each of its keys once in one random
 * order, then once more in another, so a key comes back after about this many other requests.
 */
export const REASK_BLOCK_KEYS = 5000;

/** A small deterministic generator, so every run (and both builds of --compare) asks the same. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function shuffle(array, next) {
  for (let i = array.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [array[i], array[j]] = [array[j], array[i]];
  }
  return array;
}

/** `count` distinct numbers out of 0…total-1, drawn without replacement. */
function sample(total, count, next) {
  const pool = new Int32Array(total);
  for (let i = 0; i < total; i++) pool[i] = i;
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(next() * (total - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.subarray(0, count);
}

/**
 * The `status-distinct` request list over a dataset of `sessions`: distinct keys in LOOKUP_MIX
 * (as many as the SUCCESSFUL sessions allow, each asked twice), spread over the whole table.
 * Returns the keys' paths, the class and expected status of each, and `order`, the list of key
 * numbers a load test walks through (twice the keys, never one key right after itself).
 */
export function distinctKeyList(sessions) {
  const next = random(0x5eed_0001);
  const available = sessionsPerStatus(sessions);
  const keys = Math.floor(available.SUCCESSFUL / LOOKUP_MIX.SUCCESSFUL);
  const counts = Object.fromEntries(
    Object.entries(LOOKUP_MIX).map(([cls, share]) => [cls, Math.round(keys * share)]),
  );
  const entries = [];
  for (const [cls, count] of Object.entries(counts)) {
    if (cls === 'unknown') {
      // Past the last session, so the key is well-formed but absent.
      for (let j = 0; j < count; j++) entries.push([cls, validationKeyOf(sessions + j * 7 + 3)]);
      continue;
    }
    for (const k of sample(available[cls], Math.min(count, available[cls]), next)) {
      entries.push([cls, validationKeyOf(indexOfStatus(cls, k))]);
    }
  }
  shuffle(entries, next);
  const paths = entries.map(([, key]) => STATUS_PREFIX + key);
  const classes = entries.map(([cls]) => cls);
  const expected = new Uint16Array(entries.map(([cls]) => (cls === 'unknown' ? 404 : 200)));

  const order = new Int32Array(2 * entries.length);
  const blocks = Math.max(1, Math.round(entries.length / REASK_BLOCK_KEYS));
  let at = 0;
  for (let b = 0; b < blocks; b++) {
    const from = Math.floor((b * entries.length) / blocks);
    const to = Math.floor(((b + 1) * entries.length) / blocks);
    const block = Array.from({ length: to - from }, (_, i) => from + i);
    const first = shuffle([...block], next);
    const second = shuffle([...block], next);
    if (second.length > 1 && second[0] === first[first.length - 1]) {
      [second[0], second[1]] = [second[1], second[0]];
    }
    for (const key of first) order[at++] = key;
    for (const key of second) order[at++] = key;
  }
  const share = Object.fromEntries(
    Object.keys(LOOKUP_MIX).map((cls) => [
      cls,
      classes.filter((c) => c === cls).length / classes.length,
    ]),
  );
  return { paths, classes, expected, order, share, keys: entries.length };
}

/** The scenarios of a dataset of `sessions`. */
export function defineScenarios(sessions) {
  const key = (status) => validationKeyOf(indexWithStatus(sessions, status));
  // Many PENDING keys over the whole table (deterministic), for real index lookups.
  const next = random(0x2545f491);
  const pendingCount = sessionsPerStatus(sessions).PENDING;
  const randomPending = Array.from(
    { length: Math.min(20_000, pendingCount) },
    () =>
      `${STATUS_PREFIX}${validationKeyOf(indexOfStatus('PENDING', Math.floor(next() * pendingCount)))}`,
  );
  const single = (id, label, path, expect) => ({
    id,
    label,
    paths: [path],
    expect,
    replays: [{ id, path, expect }],
  });
  let distinct;
  return [
    single('catalog-default', 'catalog, default page', CATALOG_PATH, 200),
    single(
      'catalog-country',
      `catalog, countryCode=${FILTER_COUNTRY}`,
      `${CATALOG_PATH}?countryCode=${FILTER_COUNTRY}`,
      200,
    ),
    single('status-successful', 'status, SUCCESSFUL key', STATUS_PREFIX + key('SUCCESSFUL'), 200),
    single('status-pending', 'status, PENDING key', STATUS_PREFIX + key('PENDING'), 200),
    single(
      'status-unknown',
      'status, unknown key (404)',
      `${STATUS_PREFIX}vk_99999999_0badc0de`,
      404,
    ),
    {
      id: 'status-pending-random',
      label: 'status, random PENDING keys',
      paths: randomPending,
      expect: 200,
      // Every PENDING answer is the same bytes: the baselines replay the first for all of them.
      replays: [
        { id: 'status-pending-random', path: randomPending[0], expect: 200, cls: 'PENDING' },
      ],
      sameBody: true,
      extra: true,
    },
    {
      id: 'status-distinct',
      label: 'status, distinct keys in the mix',
      mixed: true,
      /** Built on first use: a million-session list takes a second and some memory. */
      get list() {
        distinct ??= distinctKeyList(sessions);
        return distinct;
      },
      get paths() {
        return this.list.paths;
      },
      get replays() {
        // One key of each class: its answer is what the baselines replay for that class.
        const { paths, classes, expected } = this.list;
        return Object.keys(LOOKUP_MIX).map((cls) => {
          const i = classes.indexOf(cls);
          return { id: `status-distinct:${cls}`, path: paths[i], expect: expected[i], cls };
        });
      },
    },
  ];
}

/**
 * Where a load test takes its request paths from. One path: always it. Several (status-pending-
 * random): one at random per request. A key list (status-distinct): the next position of
 * `cursor`, which each server keeps across its warm-up, measurements and repeats, so a server
 * asks keys it has not asked before until the list wraps; `issued` counts the expected statuses
 * of the requests handed out, for checking the answers against the mix.
 */
export function requestSource(scenario, cursor) {
  if (scenario.mixed) {
    const { paths, expected, order } = scenario.list;
    const issued = new Map();
    const started = cursor.position;
    return {
      firstPath: paths[order[cursor.position % order.length]],
      next() {
        const key = order[cursor.position++ % order.length];
        const status = expected[key];
        issued.set(status, (issued.get(status) ?? 0) + 1);
        return paths[key];
      },
      issued,
      /** Passes over the whole list so far in this load test. */
      passes: () => (cursor.position - started) / order.length,
    };
  }
  const { paths } = scenario;
  if (paths.length === 1) return { firstPath: paths[0] };
  return {
    firstPath: paths[0],
    next: () => paths[Math.floor(Math.random() * paths.length)],
  };
}
