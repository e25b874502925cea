/**
 * What a shopper's browser downloads for the checkout's payment step (`npm run bench:page-weight`):
 * the production build (`node dist/main.js`, NODE_ENV=production) with a merchant whose bitcoin
 * and EVM keys, pairs and rates are registered through the admin API; for each of BTC on bitcoin
 * (a BIP21 URI) and USDT on Ethereum (an EIP-681 token transfer, the longest URI), a checkout
 * made by init-iframe, the pair chosen as the page does, then the payment step's HTML, its
 * stylesheet, its script and its QR code (qr.svg) fetched as the browser does.
 *
 *   npm run bench:page-weight
 *
 * Prints the bytes of each file as served (the service sends them uncompressed) and gzipped
 * (zlib's default level: what a compressing proxy in front of it would send), and the total.
 * Sizes, not times: they do not drift with the machine.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { HDKey } from '@scure/bip32';
import { ROOT, scriptEnv, scriptNodeFlags } from './lib/build.mjs';
import { initIframeRequest, jsonCaller } from './lib/gateway-calls.mjs';
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

const log = (line) => process.stderr.write(`${line}\n`);
installCleanupHandlers(log);

const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
/** SLIP-132's version bytes of a `zpub`/`zprv` (BIP84 accounts). */
const ZPUB_VERSIONS = { private: 0x04b2430c, public: 0x04b24746 };
const USDT_ETHEREUM = '0xdAC17F958D2ee523a2206206994597C13D831ec7';

const PAIRS = [
  {
    name: 'BTC on bitcoin (BIP21)',
    pair: { currencyCode: 'BTC', currencyName: 'Bitcoin', protocol: 'BITCOIN' },
    settlement: { network: 'bitcoin', decimals: 8, confirmations: 3 },
    price: '90000',
  },
  {
    name: 'USDT on Ethereum (EIP-681 token transfer)',
    pair: { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'ERC20' },
    settlement: {
      network: 'evm',
      chainId: 1,
      tokenContract: USDT_ETHEREUM,
      decimals: 6,
      confirmations: 12,
    },
    price: '0.92',
  },
];

const call = jsonCaller(admin);

/** A file as the browser gets it: its bytes, and the Content-Encoding the service sent. */
async function fetched(port, path) {
  const res = await httpRequest(port, path, { headers: { accept: 'text/html,*/*' } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
  const encoding = res.rawHeaders.findIndex((h) => h.toLowerCase() === 'content-encoding');
  if (encoding >= 0) throw new Error(`GET ${path}: sent ${res.rawHeaders[encoding + 1]}`);
  return res.body;
}

async function main() {
  await runToCompletion(process.execPath, ['scripts/build-if-needed.mjs'], {
    cwd: ROOT,
    env: process.env,
    label: 'build',
  });
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-page-weight-'));
  registerTempDir(dir);
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
        DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
        LOG_LEVEL: 'warn',
        ADMIN_TOKEN,
        CALLBACK_SECRET_KEY: randomBytes(32).toString('base64'),
        AUDIT_KEY: randomBytes(32).toString('base64'),
        CALLBACKS_ENABLED: 'false',
      },
      label: 'service',
      logFile: join(dir, 'service.log'),
    },
  );
  await waitForHttp(child, port, '/health/ready');

  await call(port, '/admin/merchants', { method: 'POST', body: { id: 'shop', name: 'Shop' } });
  const { apiKey } = await call(port, '/admin/merchants/shop/api-keys', { method: 'POST' });
  const seed = randomBytes(32);
  const keys = {
    bitcoin: HDKey.fromMasterSeed(seed, ZPUB_VERSIONS).derive("m/84'/0'/0'").publicExtendedKey,
    evm: HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'").publicExtendedKey,
  };
  for (const [network, extendedPublicKey] of Object.entries(keys)) {
    await call(port, `/admin/merchants/shop/deposit-keys/${network}`, {
      method: 'PUT',
      body: { extendedPublicKey },
    });
  }

  const rows = [];
  for (const [i, { name, pair, settlement, price }] of PAIRS.entries()) {
    await call(port, '/admin/crypto-pairs', {
      method: 'POST',
      body: { ...pair, countryCode: 'IE', settlement },
    });
    await call(port, `/admin/rates/${pair.currencyCode}`, {
      method: 'PUT',
      body: { fiat: 'EUR', price },
    });
    const started = await call(port, '/api/gateway/init-iframe', {
      method: 'POST',
      headers: { key: apiKey, 'x-api-version': '1', 'content-type': 'application/json' },
      body: initIframeRequest(`vk_weight_${i}`, 'Order 1001: a pot of tea'),
    });
    const token = started.payload[0].initializationToken;
    const first = (await fetched(port, `/checkout/${token}`)).toString('utf8');
    const nonce = /data-nonce="([^"]*)"/.exec(first)[1];
    await call(port, `/checkout/${token}/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: { nonce, currencyCode: pair.currencyCode, protocol: pair.protocol },
    });
    const html = await fetched(port, `/checkout/${token}`);
    const text = html.toString('utf8');
    const files = [
      ['the page (HTML)', html],
      ...[...text.matchAll(/(?:href|src)="(\/checkout\/[^"]+\.(?:css|js|svg))"/g)].map(
        ([, path]) => [path.replace(token, '{token}'), undefined, path],
      ),
    ];
    for (const file of files) if (file[1] === undefined) file[1] = await fetched(port, file[2]);
    let raw = 0;
    let gzipped = 0;
    for (const [file, bytes] of files) {
      const gz = gzipSync(bytes).length;
      raw += bytes.length;
      gzipped += gz;
      rows.push(`| ${name} | ${file} | ${bytes.length} | ${gz} |`);
    }
    rows.push(`| ${name} | **all ${files.length} files** | **${raw}** | **${gzipped}** |`);
  }
  console.log(
    `Node ${process.version}, production build, bytes of each file as served and gzipped`,
  );
  console.log('| payment | file | bytes | gzip bytes |');
  console.log('|---|---|---:|---:|');
  for (const row of rows) console.log(row);
}

try {
  await main();
} finally {
  await cleanup();
}
