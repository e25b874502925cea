import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminModule } from './admin/admin.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { ServiceState } from './common/service-state.js';
import { APP_CONFIG, AppConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { dataSourceOptions } from './database/data-source-options.js';
import { HealthModule } from './health/health.module.js';
import { Admission } from './http/admission.js';
import { GracefulShutdown } from './http/graceful-shutdown.js';
import { NotFoundAnswers } from './http/not-found.js';
import { RouteTable } from './http/route-table.js';
import { DocsMount } from './http/swagger.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PaymentStatusModule } from './payment-status/payment-status.module.js';
import { SeedingModule } from './seeding/seeding.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.databaseUrl, config.databasePoolSize),
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
        MetricsModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        ServiceState,
        Admission,
        RouteTable,
        NotFoundAnswers,
        GracefulShutdown,
        DocsMount,
      ],
      exports: [APP_CONFIG, ServiceState],
    };
  }
}
