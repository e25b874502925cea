/**
 * What a running service answers while a large seed file is written to its database: the
 * service (dist/main.js) on the database, then, while the seed command runs, an operator write
 * (PUT of a payment session) and a status lookup every 250 ms, each timed.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { productionNodeFlags } from './build.mjs';
import { freePort, spawnTracked, stopChild, waitForHttp } from './processes.mjs';

const ADMIN_TOKEN = 'bench-seed-admin-token-0123456789-abcdef';

function call(port, method, path, body) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(data ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () =>
      resolve({ status: 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
    );
    req.end(data);
  });
}

function summary(answers) {
  const byStatus = {};
  for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  return {
    count: answers.length,
    byStatus,
    medianMs: Math.round(ms[Math.floor(ms.length / 2)] ?? 0),
    maxMs: Math.round(ms.at(-1) ?? 0),
  };
}

/**
 * Starts the service on `env.DATABASE_URL` (loaded by a seed before), runs `seed()` and probes
 * the service while it runs. `existingKey` is a session the lookups read.
 */
export async function probeWhileSeeding({ root, distDir, env, existingKey, seed }) {
  const port = await freePort();
  const service = spawnTracked(
    process.execPath,
    [...productionNodeFlags(root), join(distDir, 'main.js')],
    {
      cwd: root,
      env: {
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        ADMIN_TOKEN,
        AUTH_MODE: 'none',
        NODE_ENV: 'development',
      },
      label: 'service beside the seed',
    },
  );
  try {
    await waitForHttp(service, port, '/health/ready');
    const writes = [];
    const reads = [];
    let running = true;
    let n = 0;
    const probing = (async () => {
      while (running) {
        const key = `vk_probe_${n++}`;
        const [write, read] = await Promise.all([
          call(port, 'PUT', `/admin/payment-sessions/${key}`, {
            merchantId: 'bench',
            status: 'PENDING',
          }),
          call(port, 'GET', `/api/gateway/payment-status/${existingKey}`),
        ]);
        writes.push(write);
        reads.push(read);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const seeded = await seed();
    running = false;
    await probing;
    return { seed: seeded, writes: summary(writes), reads: summary(reads) };
  } finally {
    await stopChild(service);
  }
}
