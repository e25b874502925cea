import { Global, Module } from '@nestjs/common';
import { ChangeFeed, DataSourceChangeFeed } from './change-feed.js';
import { DatabaseFileMonitor } from './database-file-monitor.js';
import { DatabaseFiles } from './database-files.js';
import { PreparedReads } from './prepared-reads.js';
import { Transactions } from './transactions.js';
import { TypeOrmTransactions } from './typeorm-transactions.js';
import { WriteHealth } from './write-health.js';
import { WriteProbe } from './write-probe.js';

/** Global so that every feature shares one transaction runner and the prepared reads. */
@Global()
@Module({
  providers: [
    { provide: Transactions, useClass: TypeOrmTransactions },
    PreparedReads,
    DatabaseFileMonitor,
    DatabaseFiles,
    WriteHealth,
    WriteProbe,
    { provide: ChangeFeed, useClass: DataSourceChangeFeed },
  ],
  exports: [Transactions, PreparedReads, ChangeFeed, DatabaseFiles, WriteProbe],
})
export class DatabaseModule {}
