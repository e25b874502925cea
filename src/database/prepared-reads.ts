import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { kindOf, readPoolSize } from './dialect.js';
import { openReadConnection, type ReadConnection } from './read-connection.js';

/**
 * The reads made outside transactions (a session by key, a key by hash, the catalog), as
 * prepared statements on the read connection (see ReadConnection): each sees every write
 * committed before it started, and nothing that is not committed. Feature repositories hold the
 * SQL, written with `?` placeholders.
 */
@Injectable()
export class PreparedReads implements OnApplicationShutdown {
  private connection?: Promise<ReadConnection>;
  /** Reads worth running at once on the database in use (see BatchedReads). */
  readonly concurrency: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.concurrency =
      kindOf(dataSource) === 'postgres' ? readPoolSize(config.databasePoolSize) : 1;
  }

  /** The rows of the query. */
  async all<T>(sql: string, parameters: readonly unknown[]): Promise<T[]> {
    return (await this.open()).all<T>(sql, parameters);
  }

  /** The first row of the query, or undefined. */
  async first<T>(sql: string, parameters: readonly unknown[]): Promise<T | undefined> {
    return (await this.all<T>(sql, parameters))[0];
  }

  /**
   * The rows of `select` (a statement without WHERE) whose `column` is one of the keys, in one
   * statement: the WHERE clause and the keys' one parameter come from the read connection of the
   * database in use (`inKeys`, `keysParameter`: SqliteReads, PostgresReads or SharedConnectionReads
   * in read-connection.ts, chosen by openReadConnection).
   */
  async byKeys<T>(select: string, column: string, keys: readonly string[]): Promise<T[]> {
    const connection = await this.open();
    return connection.all<T>(`${select} WHERE ${connection.inKeys(column)}`, [
      connection.keysParameter(keys),
    ]);
  }

  private open(): Promise<ReadConnection> {
    if (!this.connection) {
      const opening = openReadConnection(this.dataSource, this.config.databasePoolSize);
      // A connection that could not be opened is tried again by the next read.
      opening.catch(() => {
        if (this.connection === opening) this.connection = undefined;
      });
      this.connection = opening;
    }
    return this.connection;
  }

  async onApplicationShutdown(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await (await connection?.catch(() => undefined))?.close();
  }
}
