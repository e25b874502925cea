import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AdminModule } from './admin/admin.module.js';
import { AdminGuard } from './auth/admin.guard.js';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { AuthModule } from './auth/auth.module.js';
import { GatewayThrottlerGuard } from './auth/gateway-throttler.guard.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { ApiVersionGuard } from './http/api-version.guard.js';
import { JsonBodyGuard } from './http/json-body.guard.js';
import { loggerParams } from './http/logging.js';
import { APP_CONFIG, AppConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { dataSourceOptions } from './database/data-source-options.js';
import { HealthModule } from './health/health.module.js';
import { PaymentStatusModule } from './payment-status/payment-status.module.js';
import { SeedingModule } from './seeding/seeding.module.js';

export interface AppModuleOptions {
  /** Where request logs go; stdout when absent. */
  logStream?: DestinationStream;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        LoggerModule.forRoot(loggerParams(config, options.logStream)),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.databaseUrl),
          // The connection is retried by the pool; a dead database must not stop the process.
          retryAttempts: 0,
        }),
        DatabaseModule,
        AuthModule,
        CatalogModule,
        PaymentStatusModule,
        HealthModule,
        AdminModule,
        SeedingModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        // Guards run in this order. The rate limit comes before the key check, so callers without
        // a valid key (guessing keys) are limited per address like everyone else.
        { provide: APP_GUARD, useClass: ApiVersionGuard },
        { provide: APP_GUARD, useClass: JsonBodyGuard },
        { provide: APP_GUARD, useClass: GatewayThrottlerGuard },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: AdminGuard },
      ],
      exports: [APP_CONFIG],
    };
  }
}
