import {
  DynamicModule,
  MiddlewareConsumer,
  Module,
  NestModule,
  RequestMethod,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { pino, type Logger } from 'pino';
import { AdminModule } from './admin/admin.module.js';
import { AuditModule } from './audit/audit.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { CheckoutModule } from './checkout/checkout.module.js';
import { ServiceState } from './common/service-state.js';
import { createValidationPipe } from './common/validation.js';
import { APP_CONFIG, AppConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { dataSourceOptions } from './database/data-source-options.js';
import { SqliteConnection } from './database/sqlite-connection.js';
import { HealthModule } from './health/health.module.js';
import { AccessGuard } from './http/access.guard.js';
import { AccessPolicy } from './http/access-policy.js';
import { EnvelopeInterceptor } from './http/envelope.interceptor.js';
import { ErrorsFilter } from './http/errors.filter.js';
import { GracefulShutdown } from './http/graceful-shutdown.js';
import { LOGGER } from './http/logger.token.js';
import { RequestContext } from './http/request-context.js';
import { RouteTable } from './http/route-table.js';
import { DocsMount } from './http/swagger.js';
import { UnservedRequestMiddleware } from './http/unserved.middleware.js';
import { MerchantsModule } from './merchants/merchants.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { OperatorsModule } from './operators/operators.module.js';
import { PaymentStatusModule } from './payment-status/payment-status.module.js';
import { RateLimitsModule } from './rate-limits/rate-limits.module.js';
import { SandboxModule } from './sandbox/sandbox.module.js';
import { SeedingModule } from './seeding/seeding.module.js';

/**
 * The application: its features, and the request lifecycle every route goes through (see
 * docs/request-lifecycle.md) — the global guard (who may call), interceptor (the success
 * envelope), pipe (validation) and filter (the error envelope), and the middleware for requests
 * no route serves.
 */
@Module({})
export class AppModule implements NestModule {
  static forRoot(config: AppConfig, logger: Logger = pino({ enabled: false })): DynamicModule {
    // The SQLite connection TypeORM opens, held for the write path's prepared statements.
    const sqlite = new SqliteConnection();
    return {
      module: AppModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.databaseUrl, config.databasePoolSize, sqlite),
          // The connection is retried by the pool; a dead database must not stop the process.
          retryAttempts: 0,
        }),
        DatabaseModule,
        RateLimitsModule,
        AuditModule,
        OperatorsModule,
        MerchantsModule,
        CatalogModule,
        PaymentStatusModule,
        CheckoutModule,
        HealthModule,
        AdminModule,
        SeedingModule,
        MetricsModule,
        // The sandbox's home page and demo shop: never in production (loadConfig refuses it).
        ...(config.checkout.sandbox ? [SandboxModule] : []),
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: SqliteConnection, useValue: sqlite },
        { provide: LOGGER, useValue: logger },
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_PIPE, useFactory: () => createValidationPipe() },
        { provide: APP_FILTER, useClass: ErrorsFilter },
        ServiceState,
        AccessPolicy,
        RequestContext,
        RouteTable,
        GracefulShutdown,
        DocsMount,
      ],
      exports: [APP_CONFIG, LOGGER, ServiceState, SqliteConnection],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(UnservedRequestMiddleware).forRoutes({ path: '*', method: RequestMethod.ALL });
  }
}
