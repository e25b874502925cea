import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { databaseFileOf } from '../database/dialect.js';
import { KeyResolver } from '../access/access-ports.js';
import { ApiKeyService } from './api-key.service.js';
import { CallbackSecretService } from './callback-secret.service.js';
import { CallbackSecretBox, callbackSecretKey } from './callback-secrets.js';
import { MerchantRepository } from './merchant.repository.js';
import { MerchantService } from './merchant.service.js';
import { TypeOrmMerchantRepository } from './typeorm-merchant.repository.js';

/** Merchants, their API keys (which resolve every merchant request) and callback secrets. */
@Module({
  providers: [
    MerchantService,
    ApiKeyService,
    { provide: KeyResolver, useExisting: ApiKeyService },
    CallbackSecretService,
    { provide: MerchantRepository, useClass: TypeOrmMerchantRepository },
    {
      provide: CallbackSecretBox,
      inject: [APP_CONFIG, DataSource],
      useFactory: (config: AppConfig, dataSource: DataSource) =>
        new CallbackSecretBox(
          callbackSecretKey(config.callbacks.secretKey, databaseFileOf(dataSource)),
        ),
    },
  ],
  exports: [MerchantService, ApiKeyService, KeyResolver, CallbackSecretService, MerchantRepository],
})
export class MerchantsModule {}
