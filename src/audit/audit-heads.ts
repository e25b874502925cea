import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Transactions } from '../database/transactions.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { GENESIS_HASH } from './audit-chain.js';
import { AuditRepository } from './audit.repository.js';

/** The head of the chain: how many events it holds, the link of the last one, and its time. */
export interface AuditHead {
  events: number;
  headHash: string;
  /** The time of the last event; null for an empty chain. */
  at: string | null;
}

/** A head is published at most this often by each instance. */
export const HEAD_PUBLISH_INTERVAL_MS = 1000;

/** The longest shutdown waits for the last head to be published. */
const SHUTDOWN_PUBLISH_MS = 1000;

/** The least wait after an append: its transaction commits first, as a rule. */
const COMMIT_GRACE_MS = 50;

/**
 * Reads of a head still behind this instance's own last append (its transaction not yet
 * committed, or rolled back) before giving up until the next append.
 */
const MAX_BEHIND_READS = 30;

/** The head of a chain with no events. */
export const EMPTY_HEAD: AuditHead = { events: 0, headHash: GENESIS_HASH, at: null };

/**
 * Publishes the head of the audit chain outside the database, so that copies of it are kept
 * where a writer of the database cannot reach them: a log line (`Audit chain head`) and the
 * `audit_chain_head` metric, when the instance starts and after its appends, at most once a
 * second. The head is read from the database once the append has committed, so it is always a
 * head the chain really had (it may hold other instances' events too); each instance publishes
 * after its own appends, and of the heads all instances published, the one with most events is
 * the newest.
 */
@Injectable()
export class AuditHeads implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private published?: AuditHead;
  private lastPublishAt = 0;
  /** The highest sequence number this instance appended. */
  private appendedSeq = 0;
  private behindReads = 0;
  private timer?: NodeJS.Timeout;
  private publishing?: Promise<void>;
  private started = false;
  private stopped = false;

  constructor(
    private readonly events: AuditRepository,
    private readonly transactions: Transactions,
    private readonly metrics: MetricsService,
  ) {}

  /** The head as stored now. */
  async head(): Promise<AuditHead> {
    const last = await this.transactions.run((tx) => this.events.last(tx));
    return last ? { events: last.seq, headHash: last.hash, at: last.at } : EMPTY_HEAD;
  }

  /** Publishes the head once the schema is in place (after migrations), then after appends. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.schedule(0);
  }

  /** An event was appended by this instance, inside a transaction not yet committed. */
  appended(seq: number): void {
    this.appendedSeq = Math.max(this.appendedSeq, seq);
    this.behindReads = 0;
    if (this.started) this.schedule(COMMIT_GRACE_MS);
  }

  /**
   * Publishes what was appended and not yet published before the process ends; waits at most
   * SHUTDOWN_PUBLISH_MS for the database, so that shutdown never hangs on it.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    const pending = this.timer !== undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    const last = (this.publishing ?? Promise.resolve()).then(() =>
      pending ? this.publish() : undefined,
    );
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      last,
      new Promise((resolve) => (timeout = setTimeout(resolve, SHUTDOWN_PUBLISH_MS))),
    ]);
    clearTimeout(timeout);
  }

  private schedule(least: number): void {
    if (this.timer || this.stopped) return;
    const wait = Math.max(least, this.lastPublishAt + HEAD_PUBLISH_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => this.due(), wait);
    this.timer.unref();
  }

  /**
   * A timer came due. It was set from the time of the last line as known then; a publish still
   * reading, or one that wrote its line since, moves it on, so that lines stay a second apart
   * however long a read of the head takes.
   */
  private due(): void {
    this.timer = undefined;
    if (this.publishing) {
      void this.publishing.then(() => this.schedule(0));
      return;
    }
    if (Date.now() < this.lastPublishAt + HEAD_PUBLISH_INTERVAL_MS) {
      this.schedule(0);
      return;
    }
    this.publishing = this.publish().finally(() => (this.publishing = undefined));
  }

  private async publish(): Promise<void> {
    this.lastPublishAt = Date.now();
    let head: AuditHead;
    try {
      head = await this.head();
    } catch (error) {
      this.logger.warn({ err: String(error) }, 'Could not read the head of the audit chain');
      this.schedule(0);
      return;
    }
    if (head.events !== this.published?.events || head.headHash !== this.published.headHash) {
      this.published = head;
      this.metrics.setAuditHead(head.events, head.headHash);
      this.logger.log(
        { auditHead: head },
        `Audit chain head: ${head.events} events, last link ${head.headHash}`,
      );
      // The next line comes a whole second after this one.
      this.lastPublishAt = Date.now();
    }
    if (head.events < this.appendedSeq && ++this.behindReads < MAX_BEHIND_READS) this.schedule(0);
  }
}
