/**
 * The callback burst's data: the bench merchant with a known callback secret (seed file), the
 * callback URLs of the PENDING sessions (pointed at the local receiver), the transitions of a
 * burst (which PENDING session moves to which status, with which body), and the check of the
 * service's outbox afterwards. Shared by bench/callbacks.mjs and the burst process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { BENCH_MERCHANT_ID, statusOf, validationKeyOf } from './dataset.mjs';

export { BENCH_MERCHANT_ID };

/** Paths of the receiver: SUCCESSFUL goes to returnUrl, FAILED and NOT_COMPLETED to errorUrl. */
export const RETURN_PATH = '/merchant/return';
export const ERROR_PATH = '/merchant/error';

export function expectedPath(status) {
  return status === 'SUCCESSFUL' ? RETURN_PATH : ERROR_PATH;
}

/** A Standard Webhooks secret as the service makes them: `whsec_` + base64 of 32 bytes. */
export function newCallbackSecret() {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The seed file: the bench merchant, its API key and its callback secret. */
export function writeCallbackSeedFile(dir, apiKey, callbackSecret) {
  const file = join(dir, 'callbacks-seed.json');
  writeFileSync(
    file,
    JSON.stringify({
      merchants: [
        {
          id: BENCH_MERCHANT_ID,
          name: 'Benchmark merchant',
          apiKeys: [apiKey],
          callbackSecret,
        },
      ],
    }),
  );
  return file;
}

/** Index (in the dataset) of the k-th PENDING session: the dataset cycles through 4 statuses. */
export function pendingIndex(k) {
  return 4 * k + 1;
}
if (statusOf(pendingIndex(0)) !== 'PENDING' || statusOf(pendingIndex(1)) !== 'PENDING') {
  throw new Error('bench/lib/dataset.mjs no longer puts PENDING sessions at 4k + 1');
}

/** Sessions the dataset needs so that it holds `pending` PENDING ones (and at least `minimum`). */
export function sessionsFor(pending, minimum) {
  return Math.max(minimum, 4 * pending + 4);
}

/** The status the j-th transition of a burst reports: 1/2 SUCCESSFUL, 1/4 FAILED, 1/4 NOT_COMPLETED. */
export function burstStatus(j) {
  return ['SUCCESSFUL', 'SUCCESSFUL', 'FAILED', 'NOT_COMPLETED'][j % 4];
}

/**
 * The transition of PENDING session number `k` (the j-th of its burst): its validation key,
 * status and operator PUT body. The URLs are already stored on the session, so the body has none.
 */
export function transition(k, j) {
  const status = burstStatus(j);
  const validationKey = validationKeyOf(pendingIndex(k));
  const report = { merchantId: BENCH_MERCHANT_ID, status };
  if (status === 'SUCCESSFUL') {
    const cents = 1000 + (k % 50_000);
    const fees = Math.max(1, Math.round(cents / 100));
    const amount = (minor) => Number((minor / 100).toFixed(2));
    report.paymentResponse = {
      sourceMoney: { amount: amount(cents), currency: 'EUR' },
      destinationMoney: { amount: amount(Math.round((cents - fees) * 1.0866)), currency: 'USDT' },
      totalFees: { amount: amount(fees), currency: 'EUR' },
      money: { amount: amount(cents - fees), currency: 'EUR' },
      requestedMoney: { amount: amount(cents), currency: 'EUR' },
      traceId: `TRC-BURST-${String(k).padStart(8, '0')}`,
      transactionReference: randomUUID(),
      clientReference: `order-${k}`,
      description: 'Payout to USDT wallet',
      paymentType: 'PAYOUT',
      paymentMethod: 'CRYPTO',
      accountNumber: `IE29AIBK9311${String(k).padStart(10, '0')}`,
    };
  } else if (status === 'FAILED') {
    report.errorMessage = 'Insufficient funds in source wallet';
    report.detailedStatus = 'INSUFFICIENT_FUNDS';
  } else {
    report.detailedStatus = 'ABANDONED_BY_USER';
  }
  return { validationKey, status, body: JSON.stringify(report) };
}

/* ------------------------------------------------------------------------------------------ */
/* SQLite                                                                                      */

function openDb(file, mode) {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (error) => (error ? reject(error) : resolve(db)));
  });
}
const run = (db, sql, params = []) =>
  new Promise((resolve, reject) =>
    db.run(sql, params, function done(error) {
      if (error) reject(error);
      else resolve(this.changes);
    }),
  );
const all = (db, sql, params = []) =>
  new Promise((resolve, reject) =>
    db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))),
  );
const closeDb = (db) => new Promise((resolve) => db.close(() => resolve()));

/**
 * Gives every PENDING session of the dataset the receiver's URLs, as an operator PUT or a seed
 * file would have: the state machine keeps them once given, so the burst's PUTs need not repeat
 * them.
 */
export async function setCallbackUrls(file, { returnUrl, errorUrl }) {
  const db = await openDb(file, sqlite3.OPEN_READWRITE);
  try {
    const changed = await run(
      db,
      "UPDATE payment_session SET return_url = ?, error_url = ? WHERE status = 'PENDING'",
      [returnUrl, errorUrl],
    );
    await run(db, 'PRAGMA wal_checkpoint(TRUNCATE)');
    return changed;
  } finally {
    await closeDb(db);
  }
}

/**
 * The service's outbox for the sessions `validationKeys[0..]` (a burst's keys sort in index
 * order, so a key range selects exactly them): callbacks per state, attempts made, and the
 * callbacks that needed more than one attempt. Read-only, beside the running service (WAL).
 */
export async function outboxSummary(file, firstKey, lastKey) {
  const db = await openDb(file, sqlite3.OPEN_READONLY);
  try {
    db.configure('busyTimeout', 5000);
    const rows = await all(
      db,
      `SELECT state, COUNT(*) AS callbacks, SUM(attempts) AS attempts,
              SUM(CASE WHEN attempts > 1 THEN 1 ELSE 0 END) AS retried
         FROM callback WHERE validation_key BETWEEN ? AND ? GROUP BY state`,
      [firstKey, lastKey],
    );
    const summary = { callbacks: 0, attempts: 0, retried: 0, byState: {} };
    for (const row of rows) {
      summary.byState[row.state] = row.callbacks;
      summary.callbacks += row.callbacks;
      summary.attempts += row.attempts;
      summary.retried += row.retried;
    }
    const [{ perSession }] = await all(
      db,
      `SELECT COALESCE(MAX(n), 0) AS perSession FROM
         (SELECT COUNT(*) AS n FROM callback WHERE validation_key BETWEEN ? AND ?
           GROUP BY validation_key)`,
      [firstKey, lastKey],
    );
    summary.maxCallbacksPerSession = perSession;
    return summary;
  } finally {
    await closeDb(db);
  }
}
