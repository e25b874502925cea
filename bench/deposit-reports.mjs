/**
 * What a deposit report costs under load (`npm run bench:deposits`): the production build
 * (`node dist/main.js`, NODE_ENV=production, LOG_LEVEL=info), checkouts given deposit addresses
 * through init-iframe and their pages, then autocannon on 127.0.0.1 against POST /admin/deposits,
 * every request a transfer never reported before (a txid of its own, to one of the addresses,
 * unconfirmed: stored, judged, audited, no settlement), beside two operator routes measured in the
 * same run: GET /admin/rates (a read) and PUT /admin/rates/{code} (an audited write).
 *
 *   npm run bench:deposits
 *   npm run bench:deposits -- --database postgres --rounds 3 --seconds 10 --connections 50
 *
 * Prints, per route, the median of the rounds: acknowledged req/s, p50 and p99 latency, the
 * service's CPU µs per acknowledged request, and the ratio to the audited write. Absolute numbers
 * drift with the machine and its load: read the ratios.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HDKey } from '@scure/bip32';
import { ROOT, scriptEnv, scriptNodeFlags } from './lib/build.mjs';
import { initIframeRequest, jsonCaller } from './lib/gateway-calls.mjs';
import { startPostgres } from './lib/dataset.mjs';
import { median, measure } from './lib/measure.mjs';
import {
  cleanup,
  freePort,
  httpRequest,
  installCleanupHandlers,
  registerTempDir,
  runToCompletion,
  spawnTracked,
  waitForHttp,
} from './lib/processes.mjs';

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    addresses: { type: 'string', default: '200' },
  },
});
const log = (line) => process.stderr.write(`${line}\n`);
installCleanupHandlers(log);

const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

const call = jsonCaller(admin);

async function main() {
  await runToCompletion(process.execPath, ['scripts/build-if-needed.mjs'], {
    cwd: ROOT,
    env: process.env,
    label: 'build',
  });
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-deposits-'));
  registerTempDir(dir);
  const postgres = values.database === 'postgres' ? await startPostgres() : undefined;
  const port = await freePort();
  const child = spawnTracked(
    process.execPath,
    [...scriptNodeFlags(ROOT, 'start:prod'), join(ROOT, 'dist', 'main.js')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...scriptEnv(ROOT, 'start:prod'),
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: postgres?.url ?? `sqlite:${join(dir, 'gateway.sqlite')}`,
        LOG_LEVEL: 'info',
        ADMIN_TOKEN,
        CALLBACK_SECRET_KEY: randomBytes(32).toString('base64'),
        AUDIT_KEY: randomBytes(32).toString('base64'),
        CALLBACKS_ENABLED: 'false',
        RATE_LIMIT_PER_MINUTE: '1000000000',
      },
      label: 'service',
      logFile: join(dir, 'service.log'),
    },
  );
  await waitForHttp(child, port, '/health/ready');

  log(`setting up ${values.addresses} checkouts with a deposit address each…`);
  await call(port, '/admin/merchants', { method: 'POST', body: { id: 'bench', name: 'Bench' } });
  const { apiKey } = await call(port, '/admin/merchants/bench/api-keys', { method: 'POST' });
  await call(port, '/admin/crypto-pairs', {
    method: 'POST',
    body: {
      currencyCode: 'USDT',
      currencyName: 'Tether',
      protocol: 'TRC20',
      countryCode: 'IE',
      settlement: { network: 'tron', tokenContract: USDT_TRON, decimals: 6, confirmations: 20 },
    },
  });
  const account = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'");
  await call(port, '/admin/merchants/bench/deposit-keys/tron', {
    method: 'PUT',
    body: { extendedPublicKey: account.publicExtendedKey },
  });
  // A price that stays fresh for the whole run.
  await call(port, '/admin/rates/USDT', { method: 'PUT', body: { fiat: 'EUR', price: '0.92' } });
  const addresses = [];
  for (let i = 0; i < Number(values.addresses); i++) {
    const started = await call(port, '/api/gateway/init-iframe', {
      method: 'POST',
      headers: { key: apiKey, 'x-api-version': '1', 'content-type': 'application/json' },
      body: initIframeRequest(`vk_bench_${i}`, 'bench'),
    });
    const token = started.payload[0].initializationToken;
    const page = await httpRequest(port, `/checkout/${token}`);
    const nonce = /data-nonce="([^"]*)"/.exec(page.body.toString('utf8'))[1];
    await call(port, `/checkout/${token}/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: { nonce, currencyCode: 'USDT', protocol: 'TRC20' },
    });
    const state = await call(port, `/checkout/${token}/status`, { headers: {} });
    addresses.push(state.payload[0].payment.address);
  }

  let sent = 0;
  const scenarios = [
    {
      name: 'GET /admin/rates (read)',
      ok: 200,
      request: () => ({ method: 'GET', headers: admin, path: '/admin/rates' }),
    },
    {
      name: 'PUT /admin/rates/USDT (audited write)',
      ok: 200,
      request: () => ({
        method: 'PUT',
        headers: admin,
        next: () => '/admin/rates/USDT',
        nextBody: () => JSON.stringify({ fiat: 'EUR', price: `0.92${(sent++ % 90) + 10}` }),
      }),
    },
    {
      name: 'POST /admin/deposits (a new transfer each)',
      ok: 200,
      request: () => ({
        method: 'POST',
        headers: admin,
        next: () => '/admin/deposits',
        nextBody: () => {
          const n = sent++;
          return JSON.stringify({
            network: 'tron',
            address: addresses[n % addresses.length],
            txid: randomBytes(32).toString('hex'),
            index: 0,
            asset: USDT_TRON,
            amount: '1000000',
            confirmations: 1,
          });
        },
      }),
    },
  ];
  const options = {
    connections: Number(values.connections),
    warmup: Number(values.warmup),
    duration: Number(values.seconds),
  };
  const results = scenarios.map(() => []);
  for (let round = 0; round < Number(values.rounds); round++) {
    // Interleaved, so a busy moment of the machine falls on every route alike.
    for (const [i, scenario] of scenarios.entries()) {
      log(`round ${round + 1}: ${scenario.name}`);
      results[i].push(await measure([{ child, port }], scenario, { options, postgres }));
    }
  }
  const m = (i, field) => median(results[i].map((r) => r[field]));
  const writeCpu = m(1, 'cpuMicros');
  console.log(
    `Node ${process.version}, ${os.cpus().length} cores, ${values.database}, ${options.connections} connections, ` +
      `${values.rounds} rounds of ${options.duration} s (medians), ${addresses.length} addresses`,
  );
  console.log(
    '| route | req/s | p50 ms | p99 ms | service CPU µs/req | × audited write CPU | failed |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [i, scenario] of scenarios.entries()) {
    const failed = results[i].reduce((a, r) => a + r.failed, 0);
    console.log(
      `| ${scenario.name} | ${m(i, 'perSecond')} | ${m(i, 'p50')} | ${m(i, 'p99')} | ` +
        `${m(i, 'cpuMicros')} | ${(m(i, 'cpuMicros') / writeCpu).toFixed(2)} | ${failed} |`,
    );
  }
}

try {
  await main();
} finally {
  await cleanup();
}
