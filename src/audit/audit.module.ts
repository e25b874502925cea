import { Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { databaseFileOf } from '../database/dialect.js';
import { RefusalRecorder } from '../access/access-ports.js';
import { AuditController } from './audit.controller.js';
import { AuditHeads } from './audit-heads.js';
import { AuditKeyring, auditKeyring, useAuditKeyring } from './audit-keys.js';
import { AuditRepository } from './audit.repository.js';
import { AuditTrail } from './audit-trail.service.js';
import { TypeOrmAuditRepository } from './typeorm-audit.repository.js';

/** The audit trail; global, so that every feature records its changes into the one chain. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [
    AuditTrail,
    AuditHeads,
    {
      // Registered for the data source too: a migration that appends to the chain uses it.
      provide: AuditKeyring,
      inject: [APP_CONFIG, DataSource],
      useFactory: (config: AppConfig, dataSource: DataSource) =>
        useAuditKeyring(dataSource, auditKeyring(config.audit, databaseFileOf(dataSource))),
    },
    { provide: RefusalRecorder, useExisting: AuditTrail },
    { provide: AuditRepository, useClass: TypeOrmAuditRepository },
  ],
  exports: [AuditTrail, AuditHeads, RefusalRecorder],
})
export class AuditModule {}
