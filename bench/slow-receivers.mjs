/**
 * How long a healthy merchant's callback waits beside receivers that accept and never answer:
 * the production build (`dist/main.js` on a fresh SQLite file, CALLBACK_TIMEOUT_MS 10 s, the
 * default) first gets 100 callbacks to a hanging receiver — of one merchant, or of 100 merchants
 * one each — then one of a healthy merchant, whose receiver answers at once. The script prints
 * the healthy callback's latency (its report acknowledged → its receiver called), the median of
 * `--rounds` rounds, and the same with no hanging receiver beside it.
 *
 *   npm run build && node bench/slow-receivers.mjs [--rounds 3] [--dist dist]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fetch } from 'undici';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    hanging: { type: 'string', default: '100' },
    dist: { type: 'string', default: 'dist' },
  },
});
const HANGING = Number(values.hanging);
const ADMIN_TOKEN = 'slow-receivers-admin-token-0123456789';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

const freePort = () =>
  new Promise((done) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

/** A receiver on loopback: `hang` keeps every request open; otherwise 200 at once. */
async function receiver(hang) {
  const open = new Set();
  const arrivals = new Map();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      arrivals.set(JSON.parse(body).validationKey, performance.now());
      if (hang) open.add(res);
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

async function start(dir) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=8', '--max-old-space-size=512', resolve(values.dist, 'main.js')],
    {
      env: {
        PATH: process.env.PATH,
        MALLOC_ARENA_MAX: '2',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
        ADMIN_TOKEN,
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const up = await fetch(`${url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (tries > 300) throw new Error('dist/main.js did not start');
    await new Promise((done) => setTimeout(done, 100));
  }
  return { url, child };
}

async function send(url, path, body) {
  const r = await fetch(`${url}${path}`, {
    method: body.method ?? 'POST',
    headers: admin,
    body: JSON.stringify(body.json),
  });
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
}

/** One round: the hanging callbacks (`kind`), then the healthy one; its latency in ms. */
async function round(kind, n) {
  const dir = mkdtempSync(join(tmpdir(), 'slow-receivers-'));
  const { url, child } = await start(dir);
  const [hanging, healthy] = await Promise.all([receiver(true), receiver(false)]);
  try {
    const merchants = kind === 'one merchant' ? 1 : kind === 'none' ? 0 : HANGING;
    for (let m = 0; m <= merchants; m++) {
      await send(url, '/admin/merchants', { json: { id: `m${m}`, name: `M${m}` } });
    }
    const callbacks = kind === 'none' ? 0 : HANGING;
    await Promise.all(
      Array.from({ length: callbacks }, (_, i) =>
        send(url, `/admin/payment-sessions/vk_hang_${n}_${i}`, {
          method: 'PUT',
          json: {
            merchantId: `m${merchants === 1 ? 1 : i + 1}`,
            status: 'FAILED',
            errorMessage: 'Declined',
            returnUrl: `${hanging.url}/hook`,
          },
        }),
      ),
    );
    // Every hanging callback has reached its receiver (or waits for a slot) before the healthy one.
    const deadline = Date.now() + 5000;
    while (hanging.arrivals.size < Math.min(callbacks, 32) && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
    }
    const key = `vk_healthy_${n}`;
    await send(url, `/admin/payment-sessions/${key}`, {
      method: 'PUT',
      json: {
        merchantId: 'm0',
        status: 'FAILED',
        errorMessage: 'Declined',
        returnUrl: `${healthy.url}/hook`,
      },
    });
    const acknowledged = performance.now();
    while (!healthy.arrivals.has(key)) {
      if (performance.now() - acknowledged > 120_000)
        throw new Error('the healthy callback never came');
      await new Promise((done) => setTimeout(done, 5));
    }
    return healthy.arrivals.get(key) - acknowledged;
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.on('exit', done));
    await Promise.all([hanging.close(), healthy.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lines = [];
for (const kind of ['none', 'one merchant', 'one merchant each']) {
  const times = [];
  for (let n = 0; n < Number(values.rounds); n++) times.push(await round(kind, n));
  const label =
    kind === 'none'
      ? 'no hanging receiver'
      : `${HANGING} hanging callbacks, ${kind === 'one merchant' ? 'of one merchant' : `of ${HANGING} merchants, one each`}`;
  lines.push(
    `${label}: healthy callback after ${Math.round(median(times))} ms (median of ${times.length}: ${times.map(Math.round).join(', ')} ms)`,
  );
  process.stdout.write(`${lines[lines.length - 1]}\n`);
}
