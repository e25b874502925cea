/**
 * The merchant's callback endpoint for bench/callbacks.mjs, run as its own process:
 * `node bench/lib/callbacks-receiver.mjs <port>` with the merchant's secret in
 * BENCH_CALLBACK_SECRET. Every POST is verified with the Standard Webhooks reference library
 * (`new Webhook(secret).verify(body, headers)`, as a merchant would) and answered 204 at once,
 * valid or not, so the gateway never retries; what arrived is kept in memory. The benchmark reads
 * it, and clears it between bursts, on the control routes under /_bench/:
 *   GET  /_bench/stats       counts so far (cheap: polled during a burst)
 *   GET  /_bench/deliveries  every delivery [webhookId, validationKey, status, path, at, valid]
 *   GET  /_bench/reset       forget everything
 * Prints `LISTENING <port>` when ready.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.BENCH_CALLBACK_SECRET;
if (!secret) {
  process.stderr.write('BENCH_CALLBACK_SECRET is required\n');
  process.exit(2);
}
const webhook = new Webhook(secret);

let deliveries = [];
let timesById = new Map();
let invalid = 0;
let duplicateDeliveries = 0;
let firstAt = null;
let lastAt = null;

function reset() {
  deliveries = [];
  timesById = new Map();
  invalid = 0;
  duplicateDeliveries = 0;
  firstAt = null;
  lastAt = null;
}

function stats() {
  let duplicateIds = 0;
  for (const n of timesById.values()) if (n > 1) duplicateIds++;
  return {
    received: deliveries.length,
    distinctIds: timesById.size,
    invalid,
    duplicateIds,
    duplicateDeliveries,
    firstAt,
    lastAt,
  };
}

function record(req, body) {
  const at = Date.now();
  const webhookId = String(req.headers['webhook-id'] ?? '');
  let valid = true;
  try {
    webhook.verify(body, req.headers);
  } catch {
    valid = false;
    invalid++;
  }
  let validationKey = null;
  let status = null;
  try {
    ({ validationKey = null, status = null } = JSON.parse(body));
  } catch {
    // not JSON: recorded without a session, the benchmark counts it as unexpected
  }
  const seen = timesById.get(webhookId) ?? 0;
  if (seen > 0) duplicateDeliveries++;
  timesById.set(webhookId, seen + 1);
  firstAt ??= at;
  lastAt = at;
  deliveries.push([webhookId, validationKey, status, (req.url ?? '/').split('?')[0], at, valid]);
}

function json(res, value) {
  const body = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.url?.startsWith('/_bench/')) {
    req.resume();
    req.on('end', () => {
      if (req.url === '/_bench/stats') return json(res, stats());
      if (req.url === '/_bench/deliveries') return json(res, deliveries);
      if (req.url === '/_bench/reset') {
        reset();
        return json(res, stats());
      }
      res.writeHead(404).end();
    });
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    record(req, Buffer.concat(chunks).toString('utf8'));
    res.writeHead(204).end();
  });
});
// Longer than the gateway's idle connections live, so the receiver never closes one under it.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
