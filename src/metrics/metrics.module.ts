import { Global, Module } from '@nestjs/common';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { RequestObserver } from '../http/ports.js';
import { CacheLookups } from './cache-lookups.js';
import { METRICS_PATH, MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/**
 * `GET /metrics` and the metrics service; global, so any feature can count into it. The library
 * registers the route (MetricsController extends its controller); its default metrics and metric
 * providers are not used: they live in the prom-client global registry, which every application
 * in the process shares. Measured with two applications in one process: the library's providers
 * hand both the same counter (an increment in one shows in the other's scrape, and a collect()
 * would read the first application's data source), and a plain `new Counter` in the second throws
 * "already registered". MetricsService keeps one registry per application instead.
 */
@Global()
@Module({
  imports: [
    PrometheusModule.register({
      controller: MetricsController,
      path: METRICS_PATH,
      defaultMetrics: { enabled: false },
    }),
  ],
  providers: [
    MetricsService,
    { provide: CacheLookups, useExisting: MetricsService },
    { provide: RequestObserver, useExisting: MetricsService },
  ],
  exports: [MetricsService, CacheLookups, RequestObserver],
})
export class MetricsModule {}
