import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RefusalRecorder } from '../http/ports.js';
import { AuditEventRow } from './audit-event.entity.js';
import { AuditController } from './audit.controller.js';
import { AuditRepository } from './audit.repository.js';
import { AuditTrail } from './audit-trail.service.js';
import { TypeOrmAuditRepository } from './typeorm-audit.repository.js';

/** The audit trail; global, so that every feature records its changes into the one chain. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEventRow])],
  controllers: [AuditController],
  providers: [
    AuditTrail,
    { provide: RefusalRecorder, useExisting: AuditTrail },
    { provide: AuditRepository, useClass: TypeOrmAuditRepository },
  ],
  exports: [AuditTrail, RefusalRecorder],
})
export class AuditModule {}
