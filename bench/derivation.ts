/**
 * What a deposit address costs: µs per receive address for each network, derived from the
 * account's extended public key as the gateway does it, against a baseline measured in the same
 * run (one BIP32 public child derivation from a node already held: the least any address costs).
 *
 *   npm run bench:derivation               # 5 rounds of 1 s per measure
 *   npm run bench:derivation -- --rounds 9 --seconds 2
 *
 * Prints the median and the lowest–highest of the rounds. Absolute numbers drift with the machine
 * and its load: read the ratios.
 */
import { HDKey } from '@scure/bip32';
import { parseArgs } from 'node:util';
import {
  receiveAddress,
  receiveAddressOn,
  receiveAddresses,
  receiveChain,
} from '../src/deposits/deposit-address.js';
import { classifyAccountKey } from '../src/deposits/extended-keys.js';
import { DEPOSIT_NETWORKS } from '../src/deposits/networks.js';
import { paymentUri } from '../src/deposits/payment-uri.js';
import { qrCodeSvg } from '../src/deposits/qr-code.js';
import { SANDBOX_DEPOSIT_KEYS } from '../src/deposits/sandbox-keys.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '1' } },
});
const ROUNDS = Number(values.rounds);
const WINDOW_NS = BigInt(Math.round(Number(values.seconds) * 1e9));

interface Measure {
  name: string;
  /** Runs one operation; `i` differs on every call, so nothing is measured twice. */
  run: (i: number) => unknown;
  /** Operations one call does (a run of addresses). */
  perCall?: number;
}

/** µs per operation over one window, after a warm-up. */
async function round(measure: Measure, offset: number): Promise<number> {
  for (let i = 0; i < 50; i++) await measure.run(offset + i);
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  while (elapsed < WINDOW_NS) {
    await measure.run(offset + 50 + calls++);
    elapsed = process.hrtime.bigint() - start;
  }
  return Number(elapsed) / 1000 / (calls * (measure.perCall ?? 1));
}

function median(sorted: number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const keys = Object.fromEntries(
  DEPOSIT_NETWORKS.map((network) => [
    network,
    classifyAccountKey(network, SANDBOX_DEPOSIT_KEYS[network]).key!,
  ]),
);
const chain = HDKey.fromExtendedKey(SANDBOX_DEPOSIT_KEYS.evm).deriveChild(0);
const chains = Object.fromEntries(
  DEPOSIT_NETWORKS.map((network) => [network, receiveChain(keys[network])]),
);
const RUN = 100;

const measures: Measure[] = [
  { name: 'baseline: one BIP32 public child of a held node', run: (i) => chain.deriveChild(i) },
  ...DEPOSIT_NETWORKS.flatMap((network): Measure[] => [
    {
      name: `${network}: receiveAddress (key read, chain, index)`,
      run: (i) => receiveAddress(keys[network], i),
    },
    {
      // What an assignment costs: the service keeps each key's chain derived (DepositKeyService).
      name: `${network}: receiveAddressOn a kept chain (one assignment)`,
      run: (i) => receiveAddressOn(chains[network], i),
    },
    {
      name: `${network}: receiveAddresses, a run of ${RUN}, per address`,
      run: (i) => receiveAddresses(keys[network], i * RUN, RUN),
      perCall: RUN,
    },
  ]),
  {
    name: 'bitcoin: classifyAccountKey (zpub)',
    run: () => classifyAccountKey('bitcoin', SANDBOX_DEPOSIT_KEYS.bitcoin),
  },
  {
    name: 'evm token: paymentUri + qrCodeSvg',
    run: (i) =>
      qrCodeSvg(
        paymentUri({
          network: 'evm',
          address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
          amount: 10712346n + BigInt(i),
          decimals: 6,
          chainId: 1,
          tokenContract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        }),
      ),
  },
];

const results: { name: string; rounds: number[] }[] = measures.map(({ name }) => ({
  name,
  rounds: [],
}));
for (let r = 0; r < ROUNDS; r++) {
  // Interleaved, so a busy moment of the machine falls on every measure alike.
  for (const [index, measure] of measures.entries()) {
    results[index].rounds.push(await round(measure, r * 1_000_000));
  }
}

const baseline = median([...results[0].rounds].sort((a, b) => a - b));
console.log(`Node ${process.version}, ${ROUNDS} rounds of ${values.seconds} s; µs per operation`);
console.log('| measure | median µs | lowest–highest | × baseline |');
console.log('|---|---:|---:|---:|');
for (const { name, rounds } of results) {
  const sorted = [...rounds].sort((a, b) => a - b);
  const mid = median(sorted);
  const range = `${sorted[0].toFixed(1)}–${sorted.at(-1)!.toFixed(1)}`;
  console.log(`| ${name} | ${mid.toFixed(1)} | ${range} | ${(mid / baseline).toFixed(2)} |`);
}
