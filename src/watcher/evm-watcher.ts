import pRetry from 'p-retry';
import type { Logger } from 'pino';
import { getAddress, type Address, type Hash } from 'viem';
import { setTimeout as sleep } from 'node:timers/promises';
import { EvmNode, NodeUnavailable } from './evm-node.js';
import {
  GatewayClient,
  GatewayUnavailable,
  type DepositReport,
  type WatchedAddress,
} from './gateway-client.js';
import { firstBlockAtOrAfter } from './start-block.js';

/**
 * Addresses in the `to` topic of one eth_getLogs call: geth refuses more than 1000 alternatives in
 * one topic position (and, since 2025, more than 1000 addresses), so 10,000 watched addresses are
 * ten calls a round.
 */
export const RECIPIENTS_PER_LOG_QUERY = 1000;
/**
 * Blocks scanned in one round at most. A watcher far behind (a restart, a long outage) catches
 * up in rounds of this many blocks, reporting as it goes, with no pause in between; it is also
 * the block range of one eth_getLogs call, within what public node providers accept.
 */
export const MAX_BLOCKS_PER_ROUND = 500n;
/** Blocks read at once while scanning: the memory a round holds is a few blocks, not a range. */
const BLOCKS_AT_ONCE = 4;
/**
 * Hashes of the latest scanned blocks kept to find where a reorganisation forked. A fork deeper
 * than this is scanned again from the oldest kept block.
 */
const KEPT_BLOCK_HASHES = 1024;
/**
 * A restart scans from this long before the oldest watched address was given: the gateway's clock
 * and the chain's block timestamps may disagree by that much.
 */
export const ASSIGNED_AT_MARGIN_SECONDS = 600;

export interface EvmWatcherSettings {
  /** The chain the operator asked for; the node's must match. Absent: the node's chain. */
  chainId: number | undefined;
  /** Pause between rounds once caught up with the chain head. */
  pollMs: number;
  /** Backoff between the attempts of a round that failed because the node or the gateway did. */
  backoff?: { minMs: number; maxMs: number };
}

const DEFAULT_BACKOFF = { minMs: 1000, maxMs: 60_000 };

/** A transfer to a watched address the watcher has seen and not yet reported with enough confirmations. */
interface SeenTransfer {
  /** Address as the gateway listed it. */
  address: string;
  txid: Hash;
  index: number;
  /** Token contract (EIP-55), or `native`. */
  asset: string;
  amount: bigint;
  blockNumber: bigint;
  blockHash: Hash;
  /** Confirmations after which the gateway needs no further report. */
  required: number;
  /** Confirmations last accepted by the gateway. */
  reported: number | undefined;
  /** Its block left the chain and it was not found again. */
  orphaned: boolean;
}

/** The blocks a round read: their hashes, and the coin they moved to someone. */
interface BlockRange {
  from: bigint;
  /** The last block read: blocks after it are scanned next round. */
  last: bigint;
  hashes: Map<bigint, Hash>;
  /** Every transaction in them that sent coin to someone (only a few fields of each). */
  coin: Array<{ block: { number: bigint; hash: Hash }; hash: Hash; to: Address; value: bigint }>;
}

/** What a round found in its blocks. */
interface Scan {
  last: bigint;
  hashes: Map<bigint, Hash>;
  transfers: SeenTransfer[];
  addresses: number;
}

/**
 * The reference watcher for EVM networks. Each round it reads the chain head, every block since
 * the last round, and then the addresses the gateway wants watched, a page at a time: for each
 * page, the coin those blocks sent to them and the ERC-20 `Transfer` logs to them. It reports each
 * transfer to the gateway, again each round as its confirmations rise, until the address's
 * required number. It keeps no database: a restart scans again from the first block any watched
 * address could have received in. What it holds in memory does not grow with the number of
 * addresses: one page of them, the blocks of one round (a few at a time) and the coin transfers
 * in them, the hashes of the latest blocks (to notice a reorganisation) and the transfers still
 * confirming.
 *
 * The chain head is read before the address list, so an address missing from this round's list
 * was given out after the head block existed: nothing sent to it can be in a block scanned this
 * round, and the next round's list has it. New addresses need no scan of blocks already scanned.
 */
export class EvmWatcher {
  private chainId = 0;
  /** The next block to scan; undefined until the first round has listed the watched addresses. */
  private cursor: bigint | undefined;
  /** Hashes of the latest scanned blocks, in ascending order. */
  private readonly hashes = new Map<bigint, Hash>();
  /** Transfers still confirming (or whose 0 is still to be said), by `txid:index`. */
  private readonly seen = new Map<string, SeenTransfer>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly node: EvmNode,
    private readonly gateway: GatewayClient,
    private readonly logger: Logger,
    private readonly settings: EvmWatcherSettings,
  ) {}

  /** Ends the watcher after the round under way (at once when it is waiting). */
  stop(): void {
    this.stopping.abort();
  }

  /** Watches until stopped; resolves with the process's exit code (1: the node is on another chain). */
  async run(): Promise<number> {
    const chainId = await this.retrying(() => this.node.chainId());
    if (chainId === undefined) return this.stopped();
    if (this.settings.chainId !== undefined && this.settings.chainId !== chainId) {
      this.logger.error(
        { expectedChainId: this.settings.chainId, nodeChainId: chainId },
        'The node is on another chain than --chain-id: refusing to watch',
      );
      return 1;
    }
    this.chainId = chainId;
    this.logger.info({ chainId, pollSeconds: this.settings.pollMs / 1000 }, 'Watcher started');
    while (!this.stopping.signal.aborted) {
      const caughtUp = await this.retrying(() => this.round());
      if (caughtUp === undefined) break;
      if (caughtUp) {
        await sleep(this.settings.pollMs, undefined, { signal: this.stopping.signal }).catch(
          () => undefined,
        );
      }
    }
    return this.stopped();
  }

  /** One round; true when the scan reached the chain head. */
  private async round(): Promise<boolean> {
    const startedAt = performance.now();
    const rpcCalls = this.node.calls;
    const gatewayCalls = this.gateway.calls;
    // The head before the list: see the class comment.
    const head = await this.node.blockNumber();
    if (this.cursor === undefined) this.cursor = await this.startingBlock(head);
    if (this.cursor > head) await this.followReorganisation(head);

    const from = this.cursor;
    let found = 0;
    let addresses: number | undefined;
    if (from <= head) {
      const target = () => minOf(head, this.cursor! + MAX_BLOCKS_PER_ROUND - 1n);
      let blocks = await this.readBlocks(this.cursor, target());
      if (blocks === 'forked') {
        await this.followReorganisation(head);
        blocks = await this.readBlocks(this.cursor, target());
      }
      if (blocks !== 'forked') {
        const scan = await this.scan(blocks);
        this.commit(scan);
        found = scan.transfers.length;
        addresses = scan.addresses;
      }
    }
    const reports = await this.report();
    this.logger.debug(
      {
        head: String(head),
        from: String(from),
        to: String(this.cursor - 1n),
        addresses,
        found,
        reports,
        confirming: this.seen.size,
        rpcCalls: this.node.calls - rpcCalls,
        gatewayCalls: this.gateway.calls - gatewayCalls,
        ms: Math.round(performance.now() - startedAt),
      },
      'Round',
    );
    return this.cursor > head;
  }

  /**
   * The first block any listed address could have received in: the first block at or after the
   * oldest `assignedAt` (less the margin), found by binary search on block timestamps; the block
   * after the head when no address is listed.
   */
  private async startingBlock(head: bigint): Promise<bigint> {
    let oldest: string | undefined;
    let count = 0;
    for await (const page of this.gateway.watchedAddresses(this.chainId)) {
      for (const item of page) {
        count += 1;
        if (oldest === undefined || Date.parse(item.assignedAt) < Date.parse(oldest)) {
          oldest = item.assignedAt;
        }
      }
    }
    if (oldest === undefined) return head + 1n;
    const since = BigInt(Math.floor(Date.parse(oldest) / 1000) - ASSIGNED_AT_MARGIN_SECONDS);
    const start = await firstBlockAtOrAfter(since, head, async (blockNumber) => {
      const header = await this.node.header(blockNumber);
      // A block past the node's head (it moved back meanwhile) is later than any time.
      return header?.timestamp ?? BigInt(Number.MAX_SAFE_INTEGER);
    });
    this.logger.info(
      { startBlock: String(start), head: String(head), addresses: count, oldestAssignedAt: oldest },
      'Scanning from the first block a watched address could have received in',
    );
    return start;
  }

  /**
   * Reads the blocks from..to, a few at a time, keeping their hashes and the coin they moved.
   * 'forked' when block `from` does not follow the last scanned block (a reorganisation); stops
   * early where the chain changed while it read.
   */
  private async readBlocks(from: bigint, to: bigint): Promise<BlockRange | 'forked'> {
    const range: BlockRange = { from, last: from - 1n, hashes: new Map(), coin: [] };
    let parent = this.hashes.get(from - 1n);
    for (let first = from; first <= to; first += BigInt(BLOCKS_AT_ONCE)) {
      const numbers: bigint[] = [];
      for (let n = first; n <= to && n < first + BigInt(BLOCKS_AT_ONCE); n++) numbers.push(n);
      const blocks = await Promise.all(numbers.map((n) => this.node.block(n)));
      for (const block of blocks) {
        if (!block) return range; // the node's head moved back meanwhile
        if (parent !== undefined && block.parentHash !== parent) {
          // Replaced while being read: the next round finds where the chain forked.
          return block.number === from ? 'forked' : range;
        }
        range.hashes.set(block.number, block.hash);
        parent = block.hash;
        range.last = block.number;
        const where = { number: block.number, hash: block.hash };
        for (const tx of block.transactions) range.coin.push({ block: where, ...tx });
      }
    }
    return range;
  }

  /**
   * Finds the transfers to watched addresses in the blocks read, a page of addresses at a time:
   * coin sent by a transaction that succeeded, and ERC-20 `Transfer` logs of any token contract.
   */
  private async scan(blocks: BlockRange): Promise<Scan> {
    const { from, hashes } = blocks;
    let last = blocks.last;
    const transfers: SeenTransfer[] = [];
    let addresses = 0;
    if (last < from) return { last, hashes, transfers, addresses };
    for await (const page of this.gateway.watchedAddresses(this.chainId)) {
      addresses += page.length;
      const watched = new Map(page.map((item) => [item.address.toLowerCase(), item]));
      for (const tx of blocks.coin) {
        const item = watched.get(tx.to.toLowerCase());
        // A plain transfer cannot fail, but a call to an address with delegated code can.
        if (!item || !(await this.node.succeeded(tx.hash))) continue;
        transfers.push(this.transfer(item, tx.hash, 0, 'native', tx.value, tx.block));
      }
      const recipients = page.map((item) => item.address as Address);
      for (let i = 0; i < recipients.length; i += RECIPIENTS_PER_LOG_QUERY) {
        const batch = recipients.slice(i, i + RECIPIENTS_PER_LOG_QUERY);
        for (const log of await this.node.transfersTo(batch, from, last)) {
          if (log.blockNumber > last) continue;
          if (hashes.get(log.blockNumber) !== log.blockHash) {
            // The block was replaced after it was read: keep what came before it.
            last = log.blockNumber - 1n;
            continue;
          }
          if (log.value === 0n) continue; // nothing moved: not a payment
          const item = watched.get(log.to.toLowerCase());
          if (!item) continue;
          const block = { number: log.blockNumber, hash: log.blockHash };
          const asset = getAddress(log.token);
          transfers.push(
            this.transfer(item, log.transactionHash, log.logIndex, asset, log.value, block),
          );
        }
      }
    }
    for (const n of hashes.keys()) if (n > last) hashes.delete(n);
    return {
      last,
      hashes,
      transfers: transfers.filter((t) => t.blockNumber <= last),
      addresses,
    };
  }

  private transfer(
    item: WatchedAddress,
    txid: Hash,
    index: number,
    asset: string,
    amount: bigint,
    block: { number: bigint; hash: Hash },
  ): SeenTransfer {
    return {
      address: item.address,
      txid: txid.toLowerCase() as Hash,
      index,
      asset,
      amount,
      blockNumber: block.number,
      blockHash: block.hash,
      required: item.confirmations,
      reported: undefined,
      orphaned: false,
    };
  }

  /** Keeps what a scan read: its block hashes, the next block to scan, the transfers it found. */
  private commit(scan: Scan): void {
    for (const [n, hash] of scan.hashes) this.hashes.set(n, hash);
    for (const n of this.hashes.keys()) {
      if (n > scan.last - BigInt(KEPT_BLOCK_HASHES)) break;
      this.hashes.delete(n);
    }
    this.cursor = scan.last + 1n;
    for (const transfer of scan.transfers) {
      const key = `${transfer.txid}:${transfer.index}`;
      const known = this.seen.get(key);
      if (known) {
        known.blockNumber = transfer.blockNumber;
        known.blockHash = transfer.blockHash;
        known.orphaned = false;
      } else {
        this.seen.set(key, transfer);
        this.logger.info(
          {
            txid: transfer.txid,
            index: transfer.index,
            asset: transfer.asset,
            amount: String(transfer.amount),
            address: transfer.address,
            block: String(transfer.blockNumber),
          },
          'Transfer seen',
        );
      }
    }
  }

  /**
   * Finds where the chain forked from the blocks scanned (walking back over the kept hashes),
   * and scans again from there: the transfers in replaced blocks are reported with 0
   * confirmations unless the scan finds them again.
   */
  private async followReorganisation(head: bigint): Promise<void> {
    const first = this.hashes.keys().next();
    if (first.done || this.cursor === undefined) return;
    const oldest = first.value;
    const last = this.cursor - 1n;
    let fork: bigint | undefined;
    for (let height = minOf(last, head); height >= oldest; height--) {
      const header = await this.node.header(height);
      if (header !== undefined && header.hash === this.hashes.get(height)) {
        fork = height;
        break;
      }
    }
    if (fork === last) return;
    if (fork === undefined) {
      this.logger.warn(
        { keptBlocks: this.hashes.size },
        'Reorganisation deeper than the block hashes kept: scanning again from the oldest',
      );
      fork = oldest - 1n;
    }
    this.logger.warn(
      { forkBlock: String(fork), replacedBlocks: String(last - fork), head: String(head) },
      'Chain reorganisation: scanning the replaced blocks again',
    );
    for (const n of [...this.hashes.keys()]) if (n > fork) this.hashes.delete(n);
    this.cursor = fork + 1n;
    for (const transfer of this.seen.values()) {
      if (transfer.blockNumber > fork) transfer.orphaned = true;
    }
  }

  /**
   * Reports each transfer whose confirmations changed since the gateway last took them; a
   * transfer is forgotten once reported with its required confirmations, or with 0 after its
   * block left the chain. A gateway that fails keeps them all for the next round.
   */
  private async report(): Promise<number> {
    const tip = this.cursor! - 1n;
    let reports = 0;
    for (const [key, transfer] of this.seen) {
      const confirmations = transfer.orphaned ? 0 : Number(tip - transfer.blockNumber + 1n);
      if (transfer.orphaned && (transfer.reported === undefined || transfer.reported === 0)) {
        // Never counted by the gateway, or already told: nothing to take back.
        this.seen.delete(key);
        continue;
      }
      if (confirmations === transfer.reported) continue;
      const outcome = await this.gateway.report(this.depositOf(transfer, confirmations));
      reports += 1;
      transfer.reported = confirmations;
      if (transfer.orphaned) {
        this.logger.warn(
          { txid: transfer.txid, index: transfer.index, address: transfer.address },
          'Transfer left the chain: reported with 0 confirmations',
        );
      }
      if (outcome === 'refused' || transfer.orphaned || confirmations >= transfer.required) {
        this.seen.delete(key);
      }
    }
    return reports;
  }

  private depositOf(transfer: SeenTransfer, confirmations: number): DepositReport {
    return {
      network: 'evm',
      chainId: this.chainId,
      address: transfer.address,
      txid: transfer.txid,
      index: transfer.index,
      asset: transfer.asset,
      amount: String(transfer.amount),
      confirmations,
    };
  }

  /**
   * Runs `attempt` until it succeeds, waiting longer after each failure of the node or the
   * gateway (their Outage logs the outage once); undefined when stopped meanwhile.
   */
  private async retrying<T>(attempt: () => Promise<T>): Promise<T | undefined> {
    const backoff = this.settings.backoff ?? DEFAULT_BACKOFF;
    try {
      return await pRetry(attempt, {
        retries: Infinity,
        factor: 2,
        minTimeout: backoff.minMs,
        maxTimeout: backoff.maxMs,
        randomize: true,
        signal: this.stopping.signal,
        shouldRetry: ({ error }) =>
          error instanceof NodeUnavailable || error instanceof GatewayUnavailable,
      });
    } catch (error) {
      if (this.stopping.signal.aborted) return undefined;
      throw error;
    }
  }

  private stopped(): number {
    this.logger.info('Watcher stopped');
    return 0;
  }
}

function minOf(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
