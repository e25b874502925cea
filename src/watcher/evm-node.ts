import {
  BlockNotFoundError,
  createPublicClient,
  erc20Abi,
  getAbiItem,
  http,
  type Address,
  type Hash,
  type PublicClient,
} from 'viem';
import type { Outage } from './outage.js';

/** Transfer(address indexed from, address indexed to, uint256 value), from viem's ERC-20 ABI. */
const TRANSFER = getAbiItem({ abi: erc20Abi, name: 'Transfer' });

/** A node that could not be reached or did not answer; the round is tried again later. */
export class NodeUnavailable extends Error {
  constructor(
    readonly method: string,
    cause: unknown,
  ) {
    super(`${method} failed`, { cause });
  }
}

/** One HTTP request's time limit, and viem's own quick retries of a request before it gives up. */
const REQUEST_TIMEOUT_MS = 10_000;
const REQUEST_RETRIES = 2;

export interface BlockHeader {
  number: bigint;
  hash: Hash;
  parentHash: Hash;
  timestamp: bigint;
}

/** A transaction that moved the network's coin to someone, as a block lists it. */
export interface CoinTransaction {
  hash: Hash;
  to: Address;
  value: bigint;
}

export interface BlockWithTransactions extends BlockHeader {
  transactions: CoinTransaction[];
}

/** A `Transfer` log of a token contract, decoded. */
export interface TokenTransferLog {
  token: Address;
  to: Address;
  value: bigint;
  transactionHash: Hash;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hash;
}

/**
 * The JSON-RPC calls the watcher makes, through viem. Every call counts toward `calls` (the
 * watcher logs them per round) and tells the node's Outage whether the node answered.
 */
export class EvmNode {
  calls = 0;
  private readonly client: PublicClient;

  constructor(
    rpcUrl: string,
    private readonly outage: Outage,
  ) {
    this.client = createPublicClient({
      transport: http(rpcUrl, { timeout: REQUEST_TIMEOUT_MS, retryCount: REQUEST_RETRIES }),
    });
  }

  chainId(): Promise<number> {
    return this.call('eth_chainId', () => this.client.getChainId());
  }

  blockNumber(): Promise<bigint> {
    return this.call('eth_blockNumber', () => this.client.getBlockNumber({ cacheTime: 0 }));
  }

  /** The block's header, or undefined when the node has no block of that number (yet). */
  header(blockNumber: bigint): Promise<BlockHeader | undefined> {
    return this.call('eth_getBlockByNumber', async () => {
      const block = await this.client.getBlock({ blockNumber }).catch(noBlock);
      return block && headerOf(block);
    });
  }

  /** The block with the transactions that send coin to an address (contract creations left out). */
  block(blockNumber: bigint): Promise<BlockWithTransactions | undefined> {
    return this.call('eth_getBlockByNumber', async () => {
      const block = await this.client
        .getBlock({ blockNumber, includeTransactions: true })
        .catch(noBlock);
      if (!block) return undefined;
      const transactions: CoinTransaction[] = [];
      for (const tx of block.transactions) {
        if (tx.to && tx.value > 0n)
          transactions.push({ hash: tx.hash, to: tx.to, value: tx.value });
      }
      return { ...headerOf(block), transactions };
    });
  }

  /** Whether the transaction succeeded: a reverted one moved no coin. */
  succeeded(hash: Hash): Promise<boolean> {
    return this.call('eth_getTransactionReceipt', async () => {
      const receipt = await this.client.getTransactionReceipt({ hash });
      return receipt.status === 'success';
    });
  }

  /**
   * ERC-20 `Transfer` logs to any of `recipients` in the blocks from..to, of any token contract.
   * `strict` leaves out logs that do not decode as ERC-20 transfers, such as ERC-721's `Transfer`
   * (same signature, the token id indexed).
   */
  transfersTo(recipients: Address[], from: bigint, to: bigint): Promise<TokenTransferLog[]> {
    return this.call('eth_getLogs', async () => {
      const logs = await this.client.getLogs({
        event: TRANSFER,
        args: { to: recipients },
        fromBlock: from,
        toBlock: to,
        strict: true,
      });
      return logs.map((log) => ({
        token: log.address,
        to: log.args.to,
        value: log.args.value,
        transactionHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
      }));
    });
  }

  private async call<T>(method: string, run: () => Promise<T>): Promise<T> {
    this.calls += 1;
    let result: T;
    try {
      result = await run();
    } catch (error) {
      this.outage.failed(error);
      throw new NodeUnavailable(method, error);
    }
    this.outage.succeeded();
    return result;
  }
}

function headerOf(block: {
  number: bigint | null;
  hash: Hash | null;
  parentHash: Hash;
  timestamp: bigint;
}): BlockHeader {
  // A block fetched by number is never pending: it has its number and hash.
  return {
    number: block.number!,
    hash: block.hash!,
    parentHash: block.parentHash,
    timestamp: block.timestamp,
  };
}

function noBlock(error: unknown): undefined {
  if (error instanceof BlockNotFoundError) return undefined;
  throw error;
}
