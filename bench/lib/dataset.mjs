/**
 * The dataset, loaded through the service's own seed command (`node dist/seed.js <file>` with the
 * Node flags of `npm run seed`): a seed file of one merchant, 5,000 catalog pairs and the payment
 * sessions, written here, then seeded into a fresh SQLite file and, with PostgreSQL, into a
 * throwaway cluster from test/support/servers.ts. The seeding itself is measured (wall time and
 * the seed process's peak RSS): `--scenarios seed` is the seed benchmark.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';
import { peakRssMb, registerCleanup, runToCompletion, treeCpuSeconds } from './processes.mjs';

export const MERCHANT_ID = 'bench';
export const STATUSES = ['SUCCESSFUL', 'PENDING', 'NOT_COMPLETED', 'FAILED'];
export const STATUS_PATH = '/api/gateway/payment-status/';
export const CATALOG_PATH = '/api/crypto-currency-protocol-processors';

/** Session i has key keyOf(i) and status STATUSES[i % 4]: a quarter of each, over the table. */
export const keyOf = (i) => `vk_${String(i).padStart(8, '0')}`;

/** A SUCCESSFUL session near the middle of the table: the one repeated key. */
export const successfulKey = (sessions) => keyOf(Math.floor(sessions / 8) * 4);

/** Every PENDING key in a fixed shuffled order (the same in every run and for both builds). */
export function pendingKeys(sessions) {
  const keys = [];
  for (let i = 1; i < sessions; i += 4) keys.push(keyOf(i));
  let state = 0x5eed0001;
  for (let i = keys.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = Math.floor((state / 2 ** 32) * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  return keys;
}

const CURRENCIES = (
  'USDT Tether|USDC USD Coin|BTC Bitcoin|ETH Ether|BNB BNB|SOL Solana|XRP XRP|ADA Cardano|' +
  'DOGE Dogecoin|TRX TRON|DOT Polkadot|MATIC Polygon|LTC Litecoin|AVAX Avalanche|LINK Chainlink|' +
  'XLM Stellar|DAI Dai|EURC Euro Coin|PYUSD PayPal USD|TON Toncoin|ATOM Cosmos|NEAR NEAR|' +
  'ALGO Algorand|XTZ Tezos|BCH Bitcoin Cash'
)
  .split('|')
  .map((c) => [c.slice(0, c.indexOf(' ')), c.slice(c.indexOf(' ') + 1)]);
const PROTOCOLS = ['ERC20', 'TRC20', 'BEP20', 'POLYGON', 'SOLANA', 'ARBITRUM', 'BASE', 'NATIVE'];
const COUNTRIES = (
  'IE DE FR ES IT NL PT BE AT FI GR LU SK SI EE LV LT MT CY HR GB SE DK NO PL CZ HU RO BG CH ' +
  'US CA MX BR AR CL CO PE UY NG GH KE ZA EG MA TZ UG IN JP AU'
).split(' ');

/** 25 currencies × 4 protocols × 50 countries; every twentieth pair disabled. */
function* catalogPairs() {
  let n = 0;
  for (const [k, [currencyCode, currencyName]] of CURRENCIES.entries()) {
    for (let p = 0; p < 4; p++) {
      const protocol = PROTOCOLS[(k + p) % PROTOCOLS.length];
      for (const countryCode of COUNTRIES) {
        yield { currencyCode, currencyName, protocol, countryCode, enabled: n++ % 20 !== 0 };
      }
    }
  }
}

const money = (i, currency) => ({
  amount: `${10 + (i % 5000)}.${String(i % 100).padStart(2, '0')}`,
  currency,
});

/** The operator's report of session i, as a seed file holds it. */
function sessionRecord(i) {
  const status = STATUSES[i % 4];
  const record = { validationKey: keyOf(i), merchantId: MERCHANT_ID, status };
  if (status === 'NOT_COMPLETED') record.detailedStatus = 'ABANDONED_BY_USER';
  if (status === 'FAILED') {
    record.errorMessage = 'Insufficient funds in source wallet';
    record.detailedStatus = 'INSUFFICIENT_FUNDS';
  }
  if (status === 'SUCCESSFUL') {
    record.paymentResponse = {
      sourceMoney: money(i, 'EUR'),
      destinationMoney: money(i + 1, 'USDT'),
      totalFees: money(i % 7, 'EUR'),
      money: money(i + 2, 'EUR'),
      requestedMoney: money(i + 3, 'EUR'),
      traceId: `TRC-${i}`,
      description: 'Payout to USDT wallet',
      clientReference: `order-${i}`,
      responseCode: '00',
      transactionReference: `3f2b8c1e-7d4a-4e5b-9c6d-${String(i).padStart(12, '0')}`,
      paymentType: 'PAYOUT',
      paymentMethod: 'CRYPTO',
      customerAccountNumber: `TXYZ${String(i).padStart(16, '0')}`,
      accountNumber: `IE29AIBK9311${String(i).padStart(10, '0')}`,
      customerDob: '1990-04-23',
      customerFirstName: 'Aoife',
      customerLastName: 'Murphy',
      senderEmailAddress: `customer${i}@example.com`,
      customerCountryCode: COUNTRIES[i % COUNTRIES.length],
    };
  }
  return record;
}

/** Writes the seed file (streamed: a million sessions is about 300 MB) and returns its path. */
export async function writeSeedFile(dir, { sessions, apiKey }) {
  const file = join(dir, 'bench-seed.json');
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const merchant = { id: MERCHANT_ID, name: 'Benchmark merchant', apiKeys: [apiKey] };
  await write(`{"merchants":[${JSON.stringify(merchant)}],\n"cryptoPairs":[`);
  let first = true;
  for (const pair of catalogPairs()) {
    await write(`${first ? '' : ','}\n${JSON.stringify(pair)}`);
    first = false;
  }
  await write('],\n"paymentSessions":[');
  for (let i = 0; i < sessions; i++)
    await write(`${i ? ',' : ''}\n${JSON.stringify(sessionRecord(i))}`);
  out.end(']}\n');
  await once(out, 'finish');
  return file;
}

export const newApiKey = () => `gw_bench_${randomBytes(24).toString('base64url')}`;

/**
 * `node <npm run seed's flags> dist/seed.js <file>` on `url` (migrations, then every record in
 * one transaction), timed, with the seed process's peak RSS read while it runs.
 */
export async function seed({ build, file, url, env, label }) {
  const started = Date.now();
  let peak = 0;
  let sampler;
  try {
    await runToCompletion(
      process.execPath,
      [...build.seedFlags, join(build.distDir, 'seed.js'), file],
      {
        cwd: build.root,
        env: { ...process.env, ...env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
        label: `seed (${label})`,
        timeoutMs: 1_800_000,
        // VmHWM only grows: the last reading before the exit is the peak.
        onStart: (child) => {
          sampler = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid) ?? 0)), 100);
        },
      },
    );
  } finally {
    clearInterval(sampler);
  }
  return { seconds: Math.round((Date.now() - started) / 100) / 10, peakRssMb: peak };
}

/* ------------------------------------------------------------------------------------------ */
/* PostgreSQL and Redis from test/support/servers.ts                                           */

/**
 * A small dedicated database server (2 cores, a few GB). Durable like production: the test
 * defaults (fsync and full_page_writes off) are overridden, so an acknowledged write is on disk.
 */
export const POSTGRES_SETTINGS = {
  shared_buffers: '256MB',
  effective_cache_size: '1GB',
  work_mem: '4MB',
  maintenance_work_mem: '128MB',
  random_page_cost: '1.1',
  max_wal_size: '4GB',
  fsync: 'on',
  full_page_writes: 'on',
  synchronous_commit: 'on',
};

const servers = () => tsImport('../../test/support/servers.ts', import.meta.url);

export async function startPostgres() {
  const server = await (await servers()).startPostgres({ settings: POSTGRES_SETTINGS });
  registerCleanup(() => server.destroy());
  const shown = await query(server.url, async (client) => {
    const out = {};
    for (const name of ['server_version', 'fsync', 'synchronous_commit', 'full_page_writes']) {
      out[name] = (await client.query(`SHOW ${name}`)).rows[0][name].split(' ')[0];
    }
    return out;
  });
  if (shown.fsync !== 'on' || shown.synchronous_commit !== 'on') {
    throw new Error(`PostgreSQL is not durable: ${JSON.stringify(shown)}`);
  }
  const pidFile = join(server.dataDir, 'postmaster.pid');
  return {
    url: server.url,
    settings: { ...POSTGRES_SETTINGS, ...shown },
    /** CPU seconds of the postmaster and its backends so far. */
    cpu: () => treeCpuSeconds(Number(readFileSync(pidFile, 'utf8').split('\n')[0])),
  };
}

/** After seeding: statistics and hint bits now, so autovacuum has nothing to do mid-measurement. */
export const settlePostgres = (url) =>
  query(url, async (client) => {
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
    const { rows } = await client.query('SELECT pg_database_size(current_database()) AS bytes');
    return Math.round(Number(rows[0].bytes) / 2 ** 20);
  });

async function query(url, work) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function startRedis() {
  const server = await (await servers()).startRedis();
  registerCleanup(() => server.destroy());
  return server.url;
}
