/**
 * Benchmark dataset: the schema and the bench merchant come from the service's own seed script
 * (`node dist/seed.js`), the bulk rows are written straight into SQLite with the `sqlite3`
 * package, in large transactions with prepared multi-row INSERT statements. The rows themselves
 * are exported, so that PostgreSQL (postgres.mjs) gets exactly the same data.
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { hash32, sessionsPerStatus, statusOf, validationKeyOf } from './keys.mjs';
import { runToCompletion } from './processes.mjs';
import { Progress } from './progress.mjs';

export {
  STATUSES,
  STATUS_PREFIX,
  indexWithStatus,
  sessionsPerStatus,
  statusOf,
  validationKeyOf,
} from './keys.mjs';

export const BENCH_MERCHANT_ID = 'bench';

const CURRENCIES = [
  ['USDT', 'Tether', ['TRC20', 'ERC20', 'POLYGON', 'SOLANA']],
  ['USDC', 'USD Coin', ['ERC20', 'POLYGON', 'SOLANA', 'BASE']],
  ['BTC', 'Bitcoin', ['BITCOIN', 'LIGHTNING', 'BEP20', 'WBTC_ERC20']],
  ['ETH', 'Ether', ['ERC20', 'ARBITRUM', 'OPTIMISM', 'BASE']],
  ['BNB', 'BNB', ['BEP20', 'BEP2', 'ERC20', 'OPBNB']],
  ['SOL', 'Solana', ['SOLANA', 'BEP20', 'ERC20', 'WORMHOLE']],
  ['XRP', 'XRP', ['XRPL', 'BEP20', 'ERC20', 'EVM_SIDECHAIN']],
  ['ADA', 'Cardano', ['CARDANO', 'BEP20', 'ERC20', 'MILKOMEDA']],
  ['DOGE', 'Dogecoin', ['DOGECOIN', 'BEP20', 'ERC20', 'POLYGON']],
  ['TRX', 'TRON', ['TRC20', 'BEP20', 'ERC20', 'BTTC']],
  ['DOT', 'Polkadot', ['POLKADOT', 'BEP20', 'ERC20', 'MOONBEAM']],
  ['MATIC', 'Polygon', ['POLYGON', 'ERC20', 'BEP20', 'ZKEVM']],
  ['LTC', 'Litecoin', ['LITECOIN', 'BEP20', 'ERC20', 'MWEB']],
  ['AVAX', 'Avalanche', ['C_CHAIN', 'X_CHAIN', 'BEP20', 'ERC20']],
  ['LINK', 'Chainlink', ['ERC20', 'BEP20', 'POLYGON', 'ARBITRUM']],
  ['XLM', 'Stellar', ['STELLAR', 'BEP20', 'ERC20', 'SOROBAN']],
  ['DAI', 'Dai', ['ERC20', 'POLYGON', 'ARBITRUM', 'OPTIMISM']],
  ['EURC', 'Euro Coin', ['ERC20', 'SOLANA', 'BASE', 'AVALANCHE']],
  ['PYUSD', 'PayPal USD', ['ERC20', 'SOLANA', 'ARBITRUM', 'STELLAR']],
  ['TON', 'Toncoin', ['TON', 'ERC20', 'BEP20', 'TRC20']],
  ['ATOM', 'Cosmos', ['COSMOS', 'OSMOSIS', 'BEP20', 'ERC20']],
  ['NEAR', 'NEAR Protocol', ['NEAR', 'AURORA', 'BEP20', 'ERC20']],
  ['ALGO', 'Algorand', ['ALGORAND', 'ERC20', 'BEP20', 'POLYGON']],
  ['XTZ', 'Tezos', ['TEZOS', 'ERC20', 'BEP20', 'ETHERLINK']],
  ['BCH', 'Bitcoin Cash', ['BITCOIN_CASH', 'SMARTBCH', 'BEP20', 'ERC20']],
];

const COUNTRIES = (
  'IE DE FR ES IT NL PT BE AT FI GR LU SK SI EE LV LT MT CY HR ' +
  'GB SE DK NO PL CZ HU RO BG CH US CA MX BR AR CL CO PE UY NG ' +
  'GH KE ZA EG MA TZ UG IN JP AU'
).split(' ');

const NOT_COMPLETED_DETAILS = ['ABANDONED_BY_USER', 'EXPIRED', 'AWAITING_CONFIRMATION', null];
const FAILURES = [
  ['Insufficient funds in source wallet', 'INSUFFICIENT_FUNDS'],
  ['Payment declined by the issuer', null],
  ['Destination address rejected by the network', 'INVALID_DESTINATION'],
  ['Risk check failed', 'RISK_REJECTED'],
];
const FIRST_NAMES = ['Aoife', 'Liam', 'Sofia', 'Mateo', 'Amara', 'Chen', 'Noah', 'Ines', 'Kofi'];
const LAST_NAMES = ['Murphy', 'Schmidt', 'Garcia', 'Rossi', 'Okafor', 'Silva', 'Dubois', 'Kim'];

if (CURRENCIES.length * 4 * COUNTRIES.length !== 5000) {
  throw new Error('the catalog must hold 5,000 pairs');
}

function maskAccountNumber(value) {
  const n = value.length;
  if (n <= 8) return 'X'.repeat(n - Math.min(4, n)) + value.slice(n - Math.min(4, n));
  return value.slice(0, 4) + 'X'.repeat(n - 8) + value.slice(n - 4);
}

function uuidOf(index) {
  const h = createHash('md5').update(`bench-${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The stored form of a payment response (see src/payment-status/payment-status.shapes.ts). */
function storedPaymentResponse(index) {
  const h = hash32(index);
  const requested = 1000 + (h % 500_000); // 10.00 .. 5,009.99 EUR in minor units
  const fees = Math.max(1, Math.round(requested / 100));
  const money = requested - fees;
  const first = FIRST_NAMES[h % FIRST_NAMES.length];
  const last = LAST_NAMES[(h >>> 8) % LAST_NAMES.length];
  const country = COUNTRIES[(h >>> 4) % COUNTRIES.length];
  const day = String(1 + (h % 28)).padStart(2, '0');
  const month = String(1 + ((h >>> 5) % 12)).padStart(2, '0');
  return {
    sourceMoney: { amountMinor: requested, currency: 'EUR' },
    destinationMoney: { amountMinor: Math.round(money * 1.0866), currency: 'USDT' },
    totalFees: { amountMinor: fees, currency: 'EUR' },
    money: { amountMinor: money, currency: 'EUR' },
    requestedMoney: { amountMinor: requested, currency: 'EUR' },
    traceId: `TRC-2026${month}${day}-${String(index).padStart(8, '0')}`,
    description: 'Payout to USDT wallet',
    clientReference: `order-${index}`,
    responseCode: '00',
    transactionReference: uuidOf(index),
    paymentType: 'PAYOUT',
    paymentMethod: 'CRYPTO',
    customerAccountNumber: `T${createHash('sha1').update(String(index)).digest('base64url').slice(0, 33)}`,
    accountNumber: maskAccountNumber(`IE29AIBK9311${String(h).padStart(10, '0')}`),
    customerDob: `19${60 + (h % 40)}-${month}-${day}`,
    customerFirstName: first,
    customerLastName: last,
    senderEmailAddress: `${first}.${last}${index % 1000}@example.com`.toLowerCase(),
    customerCountryCode: country,
  };
}

/** detailed_status of session `index` (NOT_COMPLETED and FAILED may carry one). */
function detailOf(index) {
  switch (statusOf(index)) {
    case 'NOT_COMPLETED':
      return NOT_COMPLETED_DETAILS[hash32(index) % NOT_COMPLETED_DETAILS.length];
    case 'FAILED':
      return FAILURES[hash32(index) % FAILURES.length][1];
    default:
      return null;
  }
}

/** The payment_session columns of session `index`, in the order of SESSION_COLUMNS. */
export function sessionRow(index) {
  const status = statusOf(index);
  const error = status === 'FAILED' ? FAILURES[hash32(index) % FAILURES.length][0] : null;
  const response = status === 'SUCCESSFUL' ? JSON.stringify(storedPaymentResponse(index)) : null;
  return [validationKeyOf(index), BENCH_MERCHANT_ID, status, detailOf(index), error, response, 1];
}
export const SESSION_COLUMNS = [
  'validation_key',
  'merchant_id',
  'status',
  'detailed_status',
  'error_message',
  'payment_response',
  'version',
];

export const PAIR_COLUMNS = [
  'currency_code',
  'currency_name',
  'protocol',
  'country_code',
  'enabled',
];

/** The 5,000 catalog pairs as rows of PAIR_COLUMNS (enabled as 0/1). */
export function catalogRows() {
  const pairs = [];
  for (const [code, name, protocols] of CURRENCIES) {
    for (const protocol of protocols) {
      for (const country of COUNTRIES) pairs.push([code, name, protocol, country]);
    }
  }
  // About 5 % disabled, spread over currencies, protocols and countries.
  return pairs.map((pair, i) => [...pair, hash32(i + 7_000_000) % 20 === 0 ? 0 : 1]);
}

export const TRANSITION_COLUMNS = [
  'validation_key',
  'version',
  'from_status',
  'to_status',
  'detailed_status',
];

/** The one payment_session_transition of session `index`, in the order of TRANSITION_COLUMNS. */
export function transitionRow(index) {
  return [validationKeyOf(index), 1, null, statusOf(index), detailOf(index)];
}

/** A fresh API key of the bench merchant; both databases get the same one. */
export function newApiKey() {
  return `gw_bench_${randomBytes(24).toString('base64url')}`;
}

/** The seed file of `node dist/seed.js`: the bench merchant and its API key. */
export function writeSeedFile(dir, apiKey) {
  const seedFile = join(dir, 'bench-seed.json');
  writeFileSync(
    seedFile,
    JSON.stringify({
      merchants: [{ id: BENCH_MERCHANT_ID, name: 'Benchmark merchant', apiKeys: [apiKey] }],
    }),
  );
  return seedFile;
}

/* ------------------------------------------------------------------------------------------ */
/* sqlite3 promisified                                                                         */

function open(file) {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(db)));
  });
}
const exec = (db, sql) =>
  new Promise((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve())));
const get = (db, sql, params = []) =>
  new Promise((resolve, reject) => db.get(sql, params, (e, row) => (e ? reject(e) : resolve(row))));
const prepare = (db, sql) =>
  new Promise((resolve, reject) => {
    const stmt = db.prepare(sql, (e) => (e ? reject(e) : resolve(stmt)));
  });
const finalize = (stmt) => new Promise((resolve) => stmt.finalize(() => resolve()));
const closeDb = (db) =>
  new Promise((resolve, reject) => db.close((e) => (e ? reject(e) : resolve())));

/**
 * Inserts `count` rows made by `rowOf(i)` through multi-row prepared INSERTs of `perStatement`
 * rows, one transaction per `perTransaction` rows. Statement runs are queued without waiting
 * (sqlite3 runs them in order); only the last run of a transaction is awaited.
 */
async function bulkInsert(db, { table, columns, count, rowOf, onProgress }) {
  const perStatement = Math.max(1, Math.floor(900 / columns.length));
  const perTransaction = 25_000;
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const sqlFor = (rows) =>
    `INSERT INTO ${table} (${columns.join(',')}) VALUES ${Array(rows).fill(tuple).join(',')}`;
  const full = await prepare(db, sqlFor(perStatement));
  let partial = null;
  let partialRows = 0;
  try {
    for (let start = 0; start < count; start += perTransaction) {
      const end = Math.min(count, start + perTransaction);
      await exec(db, 'BEGIN');
      const pending = [];
      for (let i = start; i < end; i += perStatement) {
        const rows = Math.min(perStatement, end - i);
        const params = [];
        for (let j = i; j < i + rows; j++) params.push(...rowOf(j));
        let stmt = full;
        if (rows !== perStatement) {
          if (partialRows !== rows) {
            if (partial) await finalize(partial);
            partial = await prepare(db, sqlFor(rows));
            partialRows = rows;
          }
          stmt = partial;
        }
        pending.push(
          new Promise((resolve, reject) => stmt.run(params, (e) => (e ? reject(e) : resolve()))),
        );
      }
      await Promise.all(pending);
      await exec(db, 'COMMIT');
      onProgress?.(end);
    }
  } catch (error) {
    await exec(db, 'ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await finalize(full);
    if (partial) await finalize(partial);
  }
}

/**
 * The dataset's rows, the same on every database: the catalog pairs (and a new catalog revision),
 * then `sessions` payment sessions and their transitions. `write({ table, columns, count, rowOf,
 * onProgress })` loads one table; `run(sql)` runs one statement.
 */
export async function insertDatasetRows({ label, sessions, write, run }) {
  const pairs = catalogRows();
  await write({
    table: 'crypto_pair',
    columns: PAIR_COLUMNS,
    count: pairs.length,
    rowOf: (i) => pairs[i],
  });
  await run('UPDATE catalog_revision SET revision = revision + 1');
  const progress = new Progress({ label: `${label}: payment sessions`, total: sessions * 2 });
  await write({
    table: 'payment_session',
    columns: SESSION_COLUMNS,
    count: sessions,
    rowOf: sessionRow,
    onProgress: (done) => progress.update(done),
  });
  await write({
    table: 'payment_session_transition',
    columns: TRANSITION_COLUMNS,
    count: sessions,
    rowOf: transitionRow,
    onProgress: (done) => progress.update(sessions + done),
  });
  progress.done();
}

/**
 * Creates the benchmark database in `dir`: migrations and the bench merchant (`seedFile`, see
 * writeSeedFile) through the service's seed script (`env`: extra variables it needs), then 5,000
 * catalog pairs and `sessions` payment sessions.
 */
export async function createDataset({ root, dir, seedScript, seedFile, sessions, env = {}, log }) {
  const file = join(dir, 'bench.sqlite');
  const started = Date.now();
  await runToCompletion(process.execPath, [seedScript, seedFile], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'warn' },
    label: 'seed (migrations + bench merchant)',
    timeoutMs: 120_000,
  });
  const seeded = Date.now();

  const db = await open(file);
  try {
    // Bulk load only: the service opens the file afterwards with its own settings (WAL).
    await exec(db, 'PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;');
    await exec(db, 'PRAGMA cache_size = -65536;');

    await insertDatasetRows({
      label: 'SQLite',
      sessions,
      write: (spec) => bulkInsert(db, spec),
      run: (sql) => exec(db, sql),
    });
    await exec(db, 'PRAGMA wal_checkpoint(TRUNCATE); ANALYZE;');

    const counts = await get(
      db,
      `SELECT (SELECT COUNT(*) FROM crypto_pair) AS pairs,
              (SELECT COUNT(*) FROM crypto_pair WHERE enabled = 1) AS enabledPairs,
              (SELECT COUNT(DISTINCT country_code) FROM crypto_pair) AS countries,
              (SELECT COUNT(*) FROM payment_session) AS sessions,
              (SELECT COUNT(*) FROM payment_session_transition) AS transitions`,
    );
    if (counts.sessions !== sessions || counts.pairs !== 5000) {
      throw new Error(`dataset check failed: ${JSON.stringify(counts)}`);
    }
    const seconds = (Date.now() - started) / 1000;
    const seedSeconds = (seeded - started) / 1000;
    log(
      `SQLite dataset: ${counts.pairs} pairs (${counts.enabledPairs} enabled) over ${counts.countries} countries, ` +
        `${counts.sessions.toLocaleString('en')} sessions, ${counts.transitions.toLocaleString('en')} transitions ` +
        `in ${seconds.toFixed(1)} s (schema + merchant ${seedSeconds.toFixed(1)} s, rows and ANALYZE ` +
        `${(seconds - seedSeconds).toFixed(1)} s)`,
    );
    return {
      url: `sqlite:${file}`,
      summary: {
        ...counts,
        sessionsPerStatus: sessionsPerStatus(sessions),
        loadSeconds: Math.round(seconds * 10) / 10,
        seedSeconds: Math.round(seedSeconds * 10) / 10,
      },
    };
  } finally {
    await closeDb(db);
  }
}

/** A country that has pairs, for the filtered catalog scenario. */
export const FILTER_COUNTRY = 'DE';
