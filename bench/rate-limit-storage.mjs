/**
 * The cost of counting one request: @nestjs/throttler's own in-memory storage (the baseline)
 * against the service's FixedWindowStorage (dist/rate-limits/fixed-window-storage.js), in the same
 * run. One caller sends `hits` requests inside one window (a merchant's key under load); prints
 * CPU µs per counted request at each window size, and the ratio.
 *
 *   npm run build && node bench/rate-limit-storage.mjs
 */
import { ThrottlerStorageService } from '@nestjs/throttler';
import { importBuilt } from './lib/build.mjs';

const { FixedWindowStorage } = await importBuilt('rate-limits/fixed-window-storage.js');

const WINDOW_MS = 60_000;
const LIMIT = 10_000_000; // never reached: only the counting is measured
const ROUNDS = 5;

/** CPU µs per increment over `hits` requests of one caller in a fresh storage. */
async function perHit(makeStorage, hits) {
  const storage = makeStorage();
  const before = process.cpuUsage();
  for (let i = 0; i < hits; i++) await storage.increment('caller', WINDOW_MS, LIMIT, 0, 'general');
  const used = process.cpuUsage(before);
  storage.onApplicationShutdown();
  return (used.user + used.system) / hits;
}

const variants = {
  '@nestjs/throttler ThrottlerStorageService': () => new ThrottlerStorageService(),
  FixedWindowStorage: () => new FixedWindowStorage(),
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`one caller, a ${WINDOW_MS / 1000} s window; median CPU per counted request:`);
for (const hits of [1_000, 10_000, 50_000]) {
  const results = {};
  for (const [name, make] of Object.entries(variants)) {
    const samples = [];
    for (let round = 0; round < ROUNDS; round++) samples.push(await perHit(make, hits));
    results[name] = median(samples);
  }
  const [library, ours] = Object.values(results);
  console.log(`  ${hits.toLocaleString('en-US')} requests in the window:`);
  for (const [name, micros] of Object.entries(results)) {
    console.log(`    ${name.padEnd(44)} ${micros.toFixed(2)} µs`);
  }
  console.log(`    library / FixedWindowStorage: ${(library / ours).toFixed(0)}×`);
}
