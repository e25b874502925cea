import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { pino, type Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AdminModule } from './admin/admin.module.js';
import { AuditModule } from './audit/audit.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { CheckoutModule } from './checkout/checkout.module.js';
import { ServiceState } from './common/service-state.js';
import { APP_CONFIG, AppConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { DepositsModule } from './deposits/deposits.module.js';
import { dataSourceOptions } from './schema/data-source-options.js';
import { SqliteConnection } from './database/sqlite-connection.js';
import { HealthModule } from './health/health.module.js';
import { AccessGuard } from './http/access.guard.js';
import { AccessPolicy } from './access/access-policy.js';
import { EnvelopeInterceptor } from './http/envelope.interceptor.js';
import { ErrorsFilter } from './http/errors.filter.js';
import { GracefulShutdown } from './http/graceful-shutdown.js';
import { LOGGER } from './logging/logger.token.js';
import { RequestContext } from './http/request-context.js';
import { RouteCatalog } from './http/routes.js';
import { Unserved, UnservedModule } from './http/unserved.js';
import { PAYMENT_STATUS_PATH } from './payment-status/payment-status.routes.js';
import { METRICS_PATH } from './metrics/metrics.controller.js';
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
 * envelope) and filter (the error envelope), the validation pipe bound to DTO parameters, and
 * last the routes for requests no other route serves (UnservedModule).
 */
@Module({})
export class AppModule {
  /** Applications built in this process: each names its data source after its number. */
  private static built = 0;

  static forRoot(config: AppConfig, logger: Logger = pino({ enabled: false })): DynamicModule {
    // The SQLite connection TypeORM opens, held for the write path's prepared statements.
    const sqlite = new SqliteConnection();
    // @nestjs/typeorm keeps one registry of data source names per process and warns when a
    // name is registered twice. Each application has its own data source (several run in one
    // process in the e2e tests), so each gets its own name, and the features inject it by its
    // class through the alias below.
    const dataSource = `gateway-${++AppModule.built}`;
    return {
      module: AppModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.databaseUrl, config.databasePoolSize, sqlite),
          name: dataSource,
          // The connection is retried by the pool; a dead database must not stop the process.
          retryAttempts: 0,
        }),
        DiscoveryModule,
        DatabaseModule,
        RateLimitsModule,
        AuditModule,
        OperatorsModule,
        MerchantsModule,
        CatalogModule,
        PaymentStatusModule,
        DepositsModule,
        CheckoutModule,
        HealthModule,
        AdminModule,
        SeedingModule,
        MetricsModule,
        // The sandbox's home page and demo shop: never in production (loadConfig refuses it).
        ...(config.checkout.sandbox ? [SandboxModule] : []),
        // Last: Express tries routes in the order they were registered. A path below an area
        // asks for the credentials of the area's routes; below the status lookup, what no route
        // serves is a lookup that missed (the payment-status feature's UnservedRequestPolicy).
        UnservedModule.forRoot(config.httpPlatform, [
          { path: PAYMENT_STATUS_PATH, access: { access: 'merchant' } },
          { path: 'api', access: { access: 'merchant' } },
          { path: 'admin', access: { access: 'operator', role: 'viewer' } },
          // `GET /metrics` is a route: only the paths below it.
          { path: METRICS_PATH, access: { access: 'operator', role: 'viewer' }, exact: false },
          // Anywhere else; `/` is the sandbox's home page, else Nest's not-found handler.
          { path: '', access: { access: 'public' }, exact: false },
        ]),
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: SqliteConnection, useValue: sqlite },
        { provide: DataSource, useExisting: getDataSourceToken(dataSource) },
        { provide: LOGGER, useValue: logger },
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_FILTER, useClass: ErrorsFilter },
        ServiceState,
        AccessPolicy,
        RequestContext,
        RouteCatalog,
        Unserved,
        GracefulShutdown,
      ],
      exports: [APP_CONFIG, DataSource, LOGGER, ServiceState, SqliteConnection, Unserved],
    };
  }
}
