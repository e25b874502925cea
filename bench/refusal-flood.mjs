/**
 * How much one anonymous client writes into the audit trail: the production build
 * (`dist/main.js`, `NODE_ENV=production`, a fresh SQLite file) takes a flood of operator requests
 * without a token from 20 keep-alive connections (autocannon) for `--duration` seconds (60 by
 * default); the script prints the requests answered by status, and the audit events before and
 * after (the chain's head), and checks that the chain still verifies.
 *
 *   npm run build && node bench/refusal-flood.mjs [--duration 60] [--connections 20] [--dist dist]
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fetch } from 'undici';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '20' },
    dist: { type: 'string', default: 'dist' },
    path: { type: 'string', default: '/admin/merchants' },
  },
});

const ADMIN_TOKEN = 'flood-admin-token-0123456789-abcdefghij';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const key = (byte) => Buffer.alloc(32, byte).toString('base64');

const port = await new Promise((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = server.address();
    server.close(() => done(free));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'refusal-flood-'));
const url = `http://127.0.0.1:${port}`;
const child = spawn(
  process.execPath,
  ['--max-semi-space-size=8', '--max-old-space-size=512', resolve(values.dist, 'main.js')],
  {
    env: {
      PATH: process.env.PATH,
      MALLOC_ARENA_MAX: '2',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
      ADMIN_TOKEN,
      CALLBACK_SECRET_KEY: key(1),
      AUDIT_KEY: key(2),
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);

try {
  for (let tries = 0; ; tries++) {
    const up = await fetch(`${url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (tries > 300) throw new Error('dist/main.js did not start');
    await new Promise((done) => setTimeout(done, 100));
  }
  const events = async () =>
    (await (await fetch(`${url}/admin/audit-events/head`, { headers: admin })).json()).events;

  const before = await events();
  const result = await autocannon({
    url: `${url}${values.path}`,
    connections: Number(values.connections),
    duration: Number(values.duration),
  });
  // Refusals still being counted are written once their window closes, or at shutdown at the
  // latest: the figure is the trail once the flood has ended and its window has passed.
  await new Promise((done) => setTimeout(done, 61_000));
  const after = await events();
  const verify = await (await fetch(`${url}/admin/audit-events/verify`, { headers: admin })).json();
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([status, { count }]) => `${status}: ${count}`)
    .join(', ');
  process.stdout.write(
    [
      `flood: ${values.connections} keep-alive connections, ${values.duration} s, GET ${values.path} without a token`,
      `answered: ${result.requests.total} (${statuses}), ${Math.round(result.requests.average)} req/s`,
      `audit events: ${before} before, ${after} after: ${after - before} added`,
      `audit chain verifies: ${verify.valid} (${verify.events} events)`,
      '',
    ].join('\n'),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((done) => child.on('exit', done));
  rmSync(dir, { recursive: true, force: true });
}
