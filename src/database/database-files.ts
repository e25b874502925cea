import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { kindOf } from './dialect.js';
import { Transactions } from './transactions.js';

/**
 * What stays of erased data in the database's files. SQLite: deleted content is overwritten with
 * zeros (`secure_delete`), and after an erasure the write-ahead log, which still holds the pages
 * as they were, is checkpointed and emptied. PostgreSQL keeps old row versions until vacuum reuses
 * their space; nothing here can force that without rewriting the tables.
 */
@Injectable()
export class DatabaseFiles implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (kindOf(this.dataSource) !== 'sqlite') return;
    await this.transactions.outside('PRAGMA secure_delete = ON');
  }

  /** After an erasure: no older copy of the changed pages is left in the log. */
  async dropOldPageVersions(): Promise<void> {
    if (kindOf(this.dataSource) !== 'sqlite') return;
    try {
      await this.transactions.outside('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch (error) {
      // Busy: the next erasure or SQLite's own checkpoint empties it.
      this.logger.warn({ err: String(error) }, 'Could not checkpoint the log after an erasure');
    }
  }
}
