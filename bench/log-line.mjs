/**
 * The cost of one request completion line: pino's generic serialiser (`logger.info(fields,
 * message)`, the baseline) against logCompletion (dist/http/logging.js), both writing to a
 * stream that discards, in the same run. Prints CPU µs per line and the ratio.
 *
 *   npm run build && node bench/log-line.mjs [lines per round, default 200000]
 */
import pino from 'pino';
import { importBuilt } from './lib/build.mjs';

const { logCompletion } = await importBuilt('http/logging.js');
const { loggableUrl } = await importBuilt('http/paths.js');

const LINES = Number(process.argv[2] ?? 200_000);
const ROUNDS = 7;
let bytes = 0;
const discard = { write: (line) => (bytes += line.length) };
const logger = pino({ level: 'info', base: { pid: process.pid } }, discard);

const ROUTE_WORDS = new Set(['api', 'gateway', 'payment-status']);
const url = '/api/gateway/payment-status/vk_00050001_39f80725';
const loggable = () => loggableUrl(url, (word) => ROUTE_WORDS.has(word));
const route = '/api/gateway/payment-status/:validationKey';
const request = {
  method: 'GET',
  headers: { 'x-request-id': '3f1c2a9e-8d7b-4c6a-9e5f-1a2b3c4d5e6f' },
};
const response = { statusCode: 200, writableFinished: true };

const variants = {
  'pino logger.info(fields, message)': () => {
    logger.info(
      {
        requestId: request.headers['x-request-id'],
        method: request.method,
        url: loggable(),
        route,
        statusCode: response.statusCode,
        latencyMs: 1.3,
      },
      `${request.method} ${loggable()} ${response.statusCode}`,
    );
  },
  logCompletion: () =>
    logCompletion(logger, request, response, { url: loggable, route, latencyMs: 1.26 }),
};

function cpuMicros(run) {
  const before = process.cpuUsage();
  for (let i = 0; i < LINES; i++) run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / LINES;
}

const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(variants)) samples[name].push(cpuMicros(run));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const [baseline, ours] = Object.keys(variants).map((name) => median(samples[name]));
console.log(`${LINES.toLocaleString('en-US')} lines × ${ROUNDS} rounds, median CPU per line:`);
for (const name of Object.keys(variants)) {
  console.log(`  ${name.padEnd(36)} ${median(samples[name]).toFixed(3)} µs`);
}
console.log(`  logCompletion / pino: ${((100 * ours) / baseline).toFixed(0)} %`);
