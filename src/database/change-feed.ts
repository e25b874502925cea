import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import { kindOf } from './dialect.js';
import type { Tx } from './transactions.js';
import { managerOf } from './typeorm-transactions.js';

/** Listeners of one kind of change: each announcement, and each time some may have been missed. */
export interface Subscription {
  onChange(payload: string): void;
  onGap(): void;
}

/**
 * Tells every instance about changes they keep in memory (a revoked API key) as soon as the
 * transaction making the change commits. `reliable` is false while announcements may be missed:
 * an instance must then not trust what it kept.
 */
export abstract class ChangeFeed {
  abstract get reliable(): boolean;
  abstract subscribe(kind: string, subscription: Subscription): void;
  /** Announces a change to every instance when the transaction commits (none if it rolls back). */
  abstract announce(tx: Tx, kind: string, payload: string): Promise<void>;
}

/** One PostgreSQL channel carries every announcement; the payload names the kind of change. */
const CHANNEL = 'gateway_changes';

/** Waits before listening again after the connection was lost. */
const RECONNECT_DELAY_MS = 500;

/**
 * The change feed of the application's database. On PostgreSQL: LISTEN/NOTIFY on a connection of
 * its own; while that connection is down the feed is not reliable, and on reconnection every
 * subscriber hears of the gap. SQLite runs one process, which updates its own memory.
 */
@Injectable()
export class DataSourceChangeFeed
  extends ChangeFeed
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger('ChangeFeed');
  private readonly subscriptions = new Map<string, Subscription[]>();
  private client?: pg.Client;
  private listening = false;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  /** True when every announcement made by any instance reaches this one. */
  get reliable(): boolean {
    return kindOf(this.dataSource) !== 'postgres' || this.listening;
  }

  subscribe(kind: string, subscription: Subscription): void {
    this.subscriptions.set(kind, [...(this.subscriptions.get(kind) ?? []), subscription]);
  }

  async announce(tx: Tx, kind: string, payload: string): Promise<void> {
    if (kindOf(this.dataSource) !== 'postgres') return;
    await managerOf(tx).query('SELECT pg_notify($1, $2)', [CHANNEL, `${kind}:${payload}`]);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (kindOf(this.dataSource) === 'postgres') await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const options = this.dataSource.options as { url?: string };
    // Loaded here, on PostgreSQL only: a SQLite instance keeps no pg modules in its heap.
    const { Client } = (await import('pg')).default;
    if (this.stopped) return;
    const client = new Client({ connectionString: options.url, connectionTimeoutMillis: 1500 });
    this.client = client;
    const lost = (reason: string) => {
      if (this.client !== client) return;
      this.client = undefined;
      if (this.listening) this.logger.warn(`Stopped listening for changes (${reason})`);
      this.listening = false;
      this.gap();
      client.end().catch(() => undefined);
      if (!this.stopped) this.retry = setTimeout(() => void this.listen(), RECONNECT_DELAY_MS);
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('connection closed'));
    client.on('notification', (message) => this.deliver(message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      if (this.client !== client) return;
      this.listening = true;
      // Whatever was announced while nobody listened is unknown: start afresh.
      this.gap();
    } catch (error) {
      lost(error instanceof Error ? error.message : String(error));
    }
  }

  private deliver(message: string): void {
    const colon = message.indexOf(':');
    const kind = message.slice(0, colon);
    const payload = message.slice(colon + 1);
    for (const subscription of this.subscriptions.get(kind) ?? []) subscription.onChange(payload);
  }

  private gap(): void {
    for (const subscriptions of this.subscriptions.values()) {
      for (const subscription of subscriptions) subscription.onGap();
    }
  }
}
