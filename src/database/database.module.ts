import { Global, Module } from '@nestjs/common';
import { DatabaseFileMonitor } from './database-file-monitor.js';
import { PreparedReads } from './prepared-reads.js';
import { Transactions } from './transactions.js';
import { TypeOrmTransactions } from './typeorm-transactions.js';

/** Global so that every feature shares one transaction runner and the prepared reads. */
@Global()
@Module({
  providers: [
    { provide: Transactions, useClass: TypeOrmTransactions },
    PreparedReads,
    DatabaseFileMonitor,
  ],
  exports: [Transactions, PreparedReads],
})
export class DatabaseModule {}
