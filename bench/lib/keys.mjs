/**
 * The dataset's validation keys and statuses as pure functions of a session's index, with no
 * database package: the baselines import this to classify a key the way the dataset stored it.
 */

export const STATUSES = ['SUCCESSFUL', 'PENDING', 'NOT_COMPLETED', 'FAILED'];

/** Where a session's status is looked up: this prefix and its validation key. */
export const STATUS_PREFIX = '/api/gateway/payment-status/';

/** A cheap deterministic 32-bit hash, so the same index always gives the same record. */
export function hash32(n) {
  let x = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The validation key of session number `index`; keys sort in index order. */
export function validationKeyOf(index) {
  return `vk_${String(index).padStart(8, '0')}_${hash32(index).toString(16).padStart(8, '0')}`;
}

/** Sessions cycle through the four statuses in index order. */
export function statusOf(index) {
  return STATUSES[index % STATUSES.length];
}

/** Index of the `k`-th session with `status`. */
export function indexOfStatus(status, k) {
  return STATUSES.length * k + STATUSES.indexOf(status);
}

/** Index of a session with the given status, near the middle of the table. */
export function indexWithStatus(sessions, status) {
  const base = Math.floor(sessions / 2);
  return base - (base % STATUSES.length) + STATUSES.indexOf(status);
}

/** Sessions per status when the dataset holds `sessions` of them (evenly, in index order). */
export function sessionsPerStatus(sessions) {
  return Object.fromEntries(
    STATUSES.map((s, k) => [s, Math.floor(sessions / 4) + (k < sessions % 4 ? 1 : 0)]),
  );
}

/**
 * The stored status of the session a key names, or 'unknown' for a key the dataset does not hold
 * (an index at or past `sessions`, or not a dataset key). Only the index is read: the benchmark
 * asks for unknown keys with indexes past the table, never with a wrong hash.
 */
export function classOfKey(key, sessions) {
  if (key.length !== 20 || !key.startsWith('vk_')) return 'unknown';
  const index = Number(key.slice(3, 11));
  return Number.isInteger(index) && index < sessions ? statusOf(index) : 'unknown';
}
