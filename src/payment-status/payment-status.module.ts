import { Module } from '@nestjs/common';
import { CallbacksModule } from '../callbacks/callbacks.module.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { PaymentSessionRepository } from './payment-session.repository.js';
import { PaymentSessionService } from './payment-session.service.js';
import { PaymentStatusController } from './payment-status.controller.js';
import { PersonalDataHolders } from './personal-data-holders.js';
import { PersonalDataRetention } from './personal-data-retention.js';
import { StatusLookupLimit } from './status-lookup-limit.js';
import { TypeOrmPaymentSessionRepository } from './typeorm-payment-session.repository.js';
import { UnservedStatusLookups } from './unserved-status-lookups.js';
import { UnservedRequestPolicy } from '../http/ports.js';

@Module({
  imports: [MerchantsModule, CallbacksModule],
  controllers: [PaymentStatusController],
  providers: [
    PaymentSessionService,
    { provide: PaymentSessionRepository, useClass: TypeOrmPaymentSessionRepository },
    StatusLookupLimit,
    PersonalDataRetention,
    PersonalDataHolders,
    { provide: UnservedRequestPolicy, useClass: UnservedStatusLookups },
  ],
  exports: [
    PaymentSessionService,
    UnservedRequestPolicy,
    PersonalDataRetention,
    PersonalDataHolders,
  ],
})
export class PaymentStatusModule {}
