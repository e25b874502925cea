/**
 * The chain watcher's costs (`npm run bench:watcher`): for 0 (the baseline), 100, 10,000 and 100,000
 * watched addresses, the built watcher (`node dist/watcher.js`, --poll-seconds 1) runs against a
 * local EVM node (anvil) and the stand-in for the gateway's deposit routes that its tests use,
 * while a block with a token and a coin transfer to watched addresses is mined every 1.3 s or so
 * (with the Node flags of `npm run watcher`).
 * Prints, per size: JSON-RPC calls and gateway requests per round (a round that read one new
 * block, and a round with no new block), the time from a block being mined to the gateway
 * receiving its transfers' first report, and the process's resident memory.
 *
 *   npm run build && npm run bench:watcher [-- --sizes 0,10000 --blocks 20]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DepositGateway } from '../test/watcher/support/deposit-gateway.js';
import {
  clientsOf,
  freshAddress,
  LocalEvmNode,
  LOCAL_CHAIN_ID,
  mine,
  sendCoin,
  TestToken,
} from '../test/watcher/support/evm-node.js';
import { startWatcherProcess, until, type LogLine } from '../test/watcher/support/watcher-run.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '0,100,10000,100000' },
    blocks: { type: 'string', default: '20' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const BLOCKS = Number(values.blocks);
const TOKEN = 'op_bench_watcher_token_0123456789abcdef';
/** The Node flags of `npm run watcher` (package.json), so the memory measured is what it uses. */
const WATCHER_NODE_OPTIONS = '--max-semi-space-size=2 --max-old-space-size=128';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}
function memoryKb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)![1]);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

async function measure(size: number) {
  const node = await LocalEvmNode.start();
  const clients = clientsOf(node);
  const token = await TestToken.deploy(clients);
  const gateway = await DepositGateway.start(TOKEN);
  const payees: string[] = [];
  for (let i = 0; i < size; i++) {
    const address = freshAddress();
    gateway.watch(address, {
      chainId: LOCAL_CHAIN_ID,
      confirmations: 1,
      tokenContract: token.address,
    });
    payees.push(address);
  }
  const watcher = startWatcherProcess(
    ['evm', '--rpc-url', node.url, '--gateway-url', gateway.url, '--poll-seconds', '1'],
    { WATCHER_TOKEN: TOKEN, LOG_LEVEL: 'debug', NODE_OPTIONS: WATCHER_NODE_OPTIONS },
  );
  const rounds = () => watcher.lines().filter((line) => line.msg === 'Round');
  await until(() => rounds().length >= 2, 120_000, 'the first rounds');

  const latencies: number[] = [];
  for (let i = 0; i < BLOCKS && size > 0; i++) {
    const payee = payees[Math.floor(Math.random() * payees.length)] as `0x${string}`;
    const tokenTx = await token.transfer(payee, BigInt(1 + i));
    const coinTx = await sendCoin(clients, payee, '0.001');
    await mine(clients);
    const minedAt = Date.now();
    await until(
      () => gateway.reportsOf(tokenTx).length > 0 && gateway.reportsOf(coinTx).length > 0,
      60_000,
      'the reports',
    );
    for (const tx of [tokenTx, coinTx]) latencies.push(gateway.reportsOf(tx)[0].at - minedAt);
    // The next block lands at a random point of the watcher's poll period.
    await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 1000));
  }
  if (size === 0) {
    for (let i = 0; i < BLOCKS; i++) {
      await mine(clients);
      await new Promise((resolve) => setTimeout(resolve, 1300));
    }
  }
  const lines: LogLine[] = rounds().slice(2);
  const withBlock = lines.filter((line) => line.from === line.to);
  const idle = lines.filter((line) => BigInt(line.from as string) > BigInt(line.to as string));
  const memory = memoryKb(watcher.pid);
  watcher.kill('SIGTERM');
  await watcher.exited;
  await gateway.stop();
  await node.close();
  return {
    size,
    rounds: lines.length,
    rpcPerBlockRound: median(withBlock.map((l) => l.rpcCalls as number)),
    rpcPerIdleRound: idle.length ? median(idle.map((l) => l.rpcCalls as number)) : '-',
    gatewayPerRound: median(lines.map((l) => l.gatewayCalls as number)),
    roundMsWithBlock: median(withBlock.map((l) => l.ms as number)),
    latencyMs: latencies.length
      ? {
          median: median(latencies),
          p90: percentile(
            [...latencies].sort((a, b) => a - b),
            90,
          ),
          max: Math.max(...latencies),
          samples: latencies.length,
        }
      : undefined,
    rssMb: +(memory.rss / 1024).toFixed(1),
    peakRssMb: +(memory.peak / 1024).toFixed(1),
  };
}

const results = [];
for (const size of SIZES) {
  const result = await measure(size);
  results.push(result);
  console.log(JSON.stringify(result));
}
const baseline = results.find((r) => r.size === 0);
console.log(
  '\nwatched | rpc/round (new block, idle) | gateway/round | block → report ms (median, p90, max) | RSS MB (peak) | RSS vs 0',
);
for (const r of results) {
  const latency = r.latencyMs
    ? `${r.latencyMs.median}, ${r.latencyMs.p90}, ${r.latencyMs.max}`
    : '-';
  const ratio = baseline ? (r.rssMb / baseline.rssMb).toFixed(2) : '-';
  console.log(
    `${r.size} | ${r.rpcPerBlockRound}, ${r.rpcPerIdleRound} | ${r.gatewayPerRound} | ${latency} | ${r.rssMb} (${r.peakRssMb}) | ${ratio}`,
  );
}
