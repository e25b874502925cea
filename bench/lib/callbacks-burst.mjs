/**
 * One burst of transitions for bench/callbacks.mjs, run as its own process so that neither it
 * nor the read load generator delays the other's clock:
 * `node bench/lib/callbacks-burst.mjs <plan.json>` with the operator token in BENCH_ADMIN_TOKEN.
 * The plan: { port, startAt, concurrency, firstPending, count, out }. At `startAt` (epoch ms) it
 * sends `count` operator PUTs (PENDING session firstPending + j → burstStatus(j)) with at most
 * `concurrency` in flight over keep-alive connections, as fast as the service answers, and
 * writes to `out` each transition's send and answer times (epoch ms) and HTTP status.
 * Prints `READY` once loaded, `DONE` at the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Pool } from 'undici';
import { transition } from './callbacks-dataset.mjs';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const token = process.env.BENCH_ADMIN_TOKEN;
const transitions = Array.from({ length: plan.count }, (_, j) =>
  transition(plan.firstPending + j, j),
);
const pool = new Pool(`http://127.0.0.1:${plan.port}`, {
  connections: plan.concurrency,
  pipelining: 1,
  keepAliveTimeout: 60_000,
  headersTimeout: 60_000,
  bodyTimeout: 60_000,
});
const headers = {
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
};

const sentAt = new Array(plan.count);
const answeredAt = new Array(plan.count);
const statusCodes = new Array(plan.count);
const errors = [];
let next = 0;

async function worker() {
  for (let j = next++; j < plan.count; j = next++) {
    const { validationKey, body } = transitions[j];
    sentAt[j] = Date.now();
    try {
      const res = await pool.request({
        method: 'PUT',
        path: `/admin/payment-sessions/${encodeURIComponent(validationKey)}`,
        headers,
        body,
      });
      const text = await res.body.text();
      answeredAt[j] = Date.now();
      statusCodes[j] = res.statusCode;
      if (res.statusCode !== 200 && errors.length < 20) {
        errors.push(`${validationKey}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
      }
    } catch (error) {
      answeredAt[j] = Date.now();
      statusCodes[j] = 0;
      if (errors.length < 20) errors.push(`${validationKey}: ${error.message}`);
    }
  }
}

process.stdout.write('READY\n');
const wait = plan.startAt - Date.now();
if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
const started = Date.now();
await Promise.all(Array.from({ length: Math.min(plan.concurrency, plan.count) }, worker));
const finished = Date.now();
await pool.close();
writeFileSync(
  plan.out,
  JSON.stringify({
    startedAt: started,
    finishedAt: finished,
    lateStartMs: Math.max(0, started - plan.startAt),
    transitions: transitions.map((t, j) => [
      t.validationKey,
      t.status,
      sentAt[j],
      answeredAt[j],
      statusCodes[j],
    ]),
    errors,
  }),
);
process.stdout.write('DONE\n');
