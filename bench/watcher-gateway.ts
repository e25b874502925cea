/**
 * The time from a block to a paid checkout, end to end (`npm run bench:watcher-gateway`): the
 * real gateway (`node dist/main.js`, NODE_ENV=production, on a SQLite file), the built watcher (`node dist/watcher.js
 * --poll-seconds 1`, with the Node flags of `npm run watcher`), a local EVM node (anvil) and a
 * merchant's callback receiver. Each payment is a checkout of 10.00 EUR started by init-iframe,
 * its token pair chosen on the page, the exact amount sent from a funded account, and the block
 * mined at a random point of the watcher's poll period; then the merchant's status lookup is
 * polled every 10 ms until it answers SUCCESSFUL. The callback receiver serves https (a
 * certificate made by `openssl` for the run).
 *
 * Prints, per payment and as median / p90 / min / max over all of them, from the moment the
 * block holding the transfer was mined (the block that completes the required confirmations
 * with --confirmations above 1):
 *   - seen: the watcher's "Transfer seen" log line (the watcher alone: the baseline),
 *   - SUCCESSFUL: the status lookup answers SUCCESSFUL,
 *   - callback: the merchant's receiver has the signed callback,
 * and the ratio of SUCCESSFUL to seen; then the watcher's JSON-RPC calls and gateway requests per
 * round and its memory, with `--addresses` watched addresses (checkouts made beforehand, each
 * with its pair chosen: a deposit address of the real gateway).
 *
 *   npm run build && npm run bench:watcher-gateway [-- --payments 20 --addresses 10000 --confirmations 1]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { WebhookReceiver } from '../test/support/webhook-receiver.js';
import {
  clientsOf,
  LocalEvmNode,
  LOCAL_CHAIN_ID,
  mine,
  TestToken,
} from '../test/watcher/support/evm-node.js';
import {
  loopbackCertificate,
  payingCheckout,
  productionEnv,
  RealGateway,
  setUpShop,
  statusOf,
  TOKEN_PAIR,
} from '../test/watcher/support/real-gateway.js';
import { startWatcherProcess, until, type LogLine } from '../test/watcher/support/watcher-run.js';

const { values } = parseArgs({
  options: {
    payments: { type: 'string', default: '20' },
    addresses: { type: 'string', default: '0' },
    confirmations: { type: 'string', default: '1' },
  },
});
const PAYMENTS = Number(values.payments);
const EXTRA_ADDRESSES = Number(values.addresses);
const CONFIRMATIONS = Number(values.confirmations);
/** The Node flags of `npm run watcher` (package.json), so the memory measured is what it uses. */
const WATCHER_NODE_OPTIONS = '--max-semi-space-size=2 --max-old-space-size=128';
/** 10.00 EUR at 0.92 EUR per token of 6 decimals, rounded up. */
const DUE = 10_869_566n;

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const percentile = (values: number[], p: number) =>
  sorted(values)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const summary = (values: number[]) => ({
  median: percentile(values, 50),
  p90: percentile(values, 90),
  min: Math.min(...values),
  max: Math.max(...values),
});
function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)![1]);
  return { rss: +(field('VmRSS') / 1024).toFixed(1), peak: +(field('VmHWM') / 1024).toFixed(1) };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const node = await LocalEvmNode.start();
const clients = clientsOf(node);
const token = await TestToken.deploy(clients, 6);
const certificates = mkdtempSync(join(tmpdir(), 'watcher-receiver-'));
const tls = loopbackCertificate(certificates);
const receiver = await WebhookReceiver.start(0, tls);
const gateway = await RealGateway.start({
  ...productionEnv(tls.certFile),
  RATE_MAX_AGE_SECONDS: '86400',
  // The checkouts made beforehand come from one API key and one address, far faster than a
  // merchant's shoppers would: the per-key and per-address limits are lifted for the benchmark.
  RATE_LIMIT_PER_MINUTE: '1000000000',
});
const shop = await setUpShop(gateway, {
  chainId: LOCAL_CHAIN_ID,
  tokenContract: token.address,
  tokenDecimals: 6,
  confirmations: CONFIRMATIONS,
});

let made = 0;
if (EXTRA_ADDRESSES > 0) {
  const startedAt = Date.now();
  const worker = async () => {
    while (made < EXTRA_ADDRESSES) {
      const n = ++made;
      await payingCheckout(gateway, shop, `vk_watched_${n}`, receiver.url, TOKEN_PAIR);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  console.log(
    `${EXTRA_ADDRESSES} watched addresses made in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  );
}

const watcher = startWatcherProcess(
  [
    'evm',
    '--rpc-url',
    node.url,
    '--gateway-url',
    gateway.url,
    '--chain-id',
    String(LOCAL_CHAIN_ID),
    '--poll-seconds',
    '1',
  ],
  { WATCHER_TOKEN: shop.watcherToken, LOG_LEVEL: 'debug', NODE_OPTIONS: WATCHER_NODE_OPTIONS },
);
const lines = (msg: string): LogLine[] => watcher.lines().filter((line) => line.msg === msg);
await until(() => lines('Round').length >= 2, 300_000, 'the first rounds');
const roundsBefore = lines('Round').length;

const seen: number[] = [];
const successful: number[] = [];
const callback: number[] = [];
for (let i = 0; i < PAYMENTS; i++) {
  const checkout = await payingCheckout(gateway, shop, `vk_bench_${i}`, receiver.url, TOKEN_PAIR);
  // The block lands at a random point of the watcher's poll period.
  await sleep(Math.random() * 1000);
  const tx = await token.transfer(checkout.payment.address, DUE);
  if (CONFIRMATIONS > 1) await mine(clients, CONFIRMATIONS - 1);
  await mine(clients);
  const minedAt = Date.now();
  for (;;) {
    if ((await statusOf(gateway, shop, checkout.validationKey)).status === 'SUCCESSFUL') break;
    if (Date.now() - minedAt > 120_000) throw new Error(`${checkout.validationKey} not paid`);
    await sleep(10);
  }
  successful.push(Date.now() - minedAt);
  const transferSeen = lines('Transfer seen').find((line) => line.txid === tx.toLowerCase());
  if (transferSeen) seen.push((transferSeen.time as number) - minedAt);
  await receiver.waitFor(
    () => receiver.to('/return').some((d) => d.body.includes(`"${checkout.validationKey}"`)),
    60_000,
  );
  const delivery = receiver
    .to('/return')
    .find((d) => d.body.includes(`"${checkout.validationKey}"`))!;
  callback.push(delivery.at - minedAt);
  console.log(
    JSON.stringify({
      payment: i + 1,
      seenMs: seen.at(-1),
      successfulMs: successful.at(-1),
      callbackMs: callback.at(-1),
    }),
  );
}

// A few rounds with no new block.
const roundsNow = lines('Round').length;
await until(() => lines('Round').length >= roundsNow + 3, 60_000, 'rounds with no new block');
const rounds = lines('Round').slice(roundsBefore);
const withBlock = rounds.filter((l) => BigInt(l.from as string) <= BigInt(l.to as string));
const idle = rounds.filter((l) => BigInt(l.from as string) > BigInt(l.to as string));
const memory = memoryMb(watcher.pid);
watcher.kill('SIGTERM');
await watcher.exited;
await gateway.close();
await receiver.close();
await node.close();
rmSync(certificates, { recursive: true, force: true });

const seenSummary = summary(seen);
const successfulSummary = summary(successful);
console.log(
  `\n${PAYMENTS} payments, ${EXTRA_ADDRESSES + PAYMENTS} watched addresses at the end, ${CONFIRMATIONS} confirmation(s), --poll-seconds 1`,
);
console.log('from the block, ms | median | p90 | min | max');
for (const [name, s] of [
  ['seen by the watcher (baseline)', seenSummary],
  ['SUCCESSFUL (status lookup)', successfulSummary],
  ['callback received', summary(callback)],
] as const) {
  console.log(`${name} | ${s.median} | ${s.p90} | ${s.min} | ${s.max}`);
}
console.log(
  `SUCCESSFUL vs seen (median): ${(successfulSummary.median / seenSummary.median).toFixed(2)}x, +${successfulSummary.median - seenSummary.median} ms`,
);
const median = (values: number[]) => (values.length ? percentile(values, 50) : '-');
console.log(
  `watcher per round: JSON-RPC calls ${median(withBlock.map((l) => l.rpcCalls as number))} (new block) / ${median(idle.map((l) => l.rpcCalls as number))} (no new block); gateway requests ${median(withBlock.map((l) => l.gatewayCalls as number))} (new block) / ${median(idle.map((l) => l.gatewayCalls as number))} (no new block); round with a new block ${median(withBlock.map((l) => l.ms as number))} ms; RSS ${memory.rss} MB (peak ${memory.peak} MB)`,
);
