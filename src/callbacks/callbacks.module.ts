import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { CallbackOutbox } from './callback-outbox.js';
import { CallbackDispatcher } from './callback-dispatcher.js';
import { CallbackRepository } from './callback.repository.js';
import { CallbackSender } from './callback-sender.js';
import { CallbackService } from './callback.service.js';
import { TypeOrmCallbackRepository } from './typeorm-callback.repository.js';

/** Callbacks to merchants: the outbox the state machine writes to, and their delivery. */
@Module({
  imports: [MerchantsModule],
  providers: [
    CallbackService,
    { provide: CallbackOutbox, useExisting: CallbackService },
    { provide: CallbackRepository, useClass: TypeOrmCallbackRepository },
    {
      provide: CallbackSender,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new CallbackSender(config.callbacks, config.nodeEnv === 'production'),
    },
    CallbackDispatcher,
  ],
  exports: [CallbackOutbox, CallbackService],
})
export class CallbacksModule {}
