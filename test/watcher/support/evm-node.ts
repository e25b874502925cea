import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import solc from 'solc';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  http,
  parseEther,
  type Abi,
  type Address,
  type Hash,
  type Hex,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { freePort } from '../../support/main-process.js';

/**
 * The standard test phrase (BIP39's "test … junk"), which local EVM nodes fund by default. Its
 * keys are public: they hold nothing on any real chain.
 */
export const TEST_MNEMONIC = 'test test test test test test test test test test test junk';
export const LOCAL_CHAIN_ID = 31337;

const ANVIL = join(process.cwd(), 'node_modules', '.bin', 'anvil');

/**
 * A real EVM node on a loopback port: anvil (Foundry's local node, from npm). It mines only when
 * told (`mine`), so a test decides which transactions share a block. Its chain is kept in a
 * state file while it is stopped, so `restart()` brings the same blocks back on the same port, as
 * a node that went away and came back.
 */
export class LocalEvmNode {
  private child: ChildProcess | undefined;
  private output = '';

  private constructor(
    readonly port: number,
    readonly chainId: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(chainId = LOCAL_CHAIN_ID): Promise<LocalEvmNode> {
    const node = new LocalEvmNode(
      await freePort(),
      chainId,
      mkdtempSync(join(tmpdir(), 'evm-node-')),
    );
    await node.restart();
    return node;
  }

  /** Starts the node again (after stop) with the chain it had. */
  async restart(): Promise<void> {
    this.output = '';
    const child = spawn(
      ANVIL,
      [
        '--host',
        '127.0.0.1',
        '--port',
        String(this.port),
        '--chain-id',
        String(this.chainId),
        '--mnemonic',
        TEST_MNEMONIC,
        '--no-mining',
        '--state',
        join(this.dir, 'state.json'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.child = child;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const up = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      }).then(
        (response) => response.ok,
        () => false,
      );
      if (up) return;
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`anvil did not start:\n${this.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the node (its chain is written to the state file); the port refuses connections. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Clients of a local node: reads, the node's test methods, and a funded account of the phrase. */
export function clientsOf(node: LocalEvmNode, accountIndex = 0) {
  const transport = http(node.url, { retryCount: 0 });
  const account = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: accountIndex });
  const chain = {
    id: node.chainId,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  } as const;
  return {
    account,
    chain,
    public: createPublicClient({ chain, transport }),
    test: createTestClient({ chain, mode: 'anvil', transport }),
    wallet: createWalletClient({ account, chain, transport }),
  };
}
export type NodeClients = ReturnType<typeof clientsOf>;

/** An address no one has used: a fresh random key's. */
export function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}
let compiled: CompiledContract | undefined;

/** test/evm/TestToken.sol compiled by solc (the compiler from npm, in this process). */
export function testTokenContract(): CompiledContract {
  if (compiled) return compiled;
  const source = readFileSync(join(process.cwd(), 'test', 'evm', 'TestToken.sol'), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: source } },
    settings: { outputSelection: { '*': { TestToken: ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts['TestToken.sol'].TestToken;
  compiled = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  return compiled;
}

/** A deployed TestToken whose whole supply the clients' account holds. */
export class TestToken {
  private constructor(
    private readonly clients: NodeClients,
    readonly address: Address,
  ) {}

  /** Deploys the token (and mines its block). */
  static async deploy(clients: NodeClients, decimals = 6): Promise<TestToken> {
    const { abi, bytecode } = testTokenContract();
    const hash = await clients.wallet.deployContract({
      abi,
      bytecode,
      args: ['Test Dollar', 'TUSD', decimals, 10n ** 30n],
    });
    await mine(clients);
    const receipt = await clients.public.getTransactionReceipt({ hash });
    return new TestToken(clients, getAddress(receipt.contractAddress!));
  }

  /** Sends `amount` atomic units to `to` (mined with the next block). */
  transfer(to: Address, amount: bigint): Promise<Hash> {
    return this.clients.wallet.writeContract({
      address: this.address,
      abi: testTokenContract().abi,
      functionName: 'transfer',
      args: [to, amount],
    });
  }

  /** Several transfers in one transaction: one log each. */
  transferMany(to: Address[], amounts: bigint[]): Promise<Hash> {
    return this.clients.wallet.writeContract({
      address: this.address,
      abi: testTokenContract().abi,
      functionName: 'transferMany',
      args: [to, amounts],
    });
  }

  /** A signed transfer not yet sent: it can be sent again, unchanged, after a reorganisation. */
  async signedTransfer(to: Address, amount: bigint): Promise<Hex> {
    const request = await this.clients.wallet.prepareTransactionRequest({
      to: this.address,
      data: encodeTransfer(to, amount),
    });
    return this.clients.wallet.signTransaction(request);
  }
}

function encodeTransfer(to: Address, amount: bigint): Hex {
  return encodeFunctionData({
    abi: testTokenContract().abi,
    functionName: 'transfer',
    args: [to, amount],
  });
}

export interface MinedTransfer {
  hash: Hash;
  blockNumber: bigint;
  blockHash: Hash;
  /** Log indexes of the transaction's logs, in order. */
  logIndexes: number[];
}

/** Mines `blocks` blocks (the pending transactions go in the first). */
export async function mine(clients: NodeClients, blocks = 1): Promise<bigint> {
  await clients.test.mine({ blocks });
  return clients.public.getBlockNumber({ cacheTime: 0 });
}

/** A mined transaction's block and logs. */
export async function mined(clients: NodeClients, hash: Hash): Promise<MinedTransfer> {
  const receipt = await clients.public.getTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return {
    hash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    logIndexes: receipt.logs.map((log) => log.logIndex),
  };
}

/** Sends `ether` of the network's coin to `to` (mined with the next block). */
export function sendCoin(clients: NodeClients, to: Address, ether: string): Promise<Hash> {
  return clients.wallet.sendTransaction({ to, value: parseEther(ether) });
}
