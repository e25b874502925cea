import { Global, Module } from '@nestjs/common';
import { RequestObserver } from '../http/ports.js';
import { RateLimitRefusals } from '../rate-limits/rate-limit-refusals.js';
import { CacheLookups } from './cache-lookups.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/**
 * `GET /metrics` and the metrics service; global, so any feature can count into it. The metrics
 * are prom-client's, in a registry of this application's own (MetricsService), not prom-client's
 * global one, which every application in the process shares: measured with two applications in
 * one process, a metric of the global registry counted both, and a second `new Counter` of the
 * same name throws "already registered". `@willsoto/nestjs-prometheus` is not used: its module
 * serves and fills the global registry, and Nest registered its route after those of the
 * application's other modules, behind the routes for paths no route serves (docs/decisions.md,
 * "One router: Nest's").
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    MetricsService,
    { provide: CacheLookups, useExisting: MetricsService },
    { provide: RequestObserver, useExisting: MetricsService },
    { provide: RateLimitRefusals, useExisting: MetricsService },
  ],
  exports: [MetricsService, CacheLookups, RequestObserver, RateLimitRefusals],
})
export class MetricsModule {}
