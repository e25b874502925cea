import { Controller, Header } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Endpoint } from '../http/endpoint.decorator.js';
import { MetricsService } from './metrics.service.js';

/** Where the metrics are served (under CONTEXT_PATH); an operator path, like `/admin`. */
export const METRICS_PATH = 'metrics';

const SAMPLE = [
  '# HELP cache_lookups_total Cache lookups, by cache and result.',
  '# TYPE cache_lookups_total counter',
  'cache_lookups_total{cache="catalog",result="hit"} 42',
].join('\n');

/**
 * The application's own prom-client registry (MetricsService), served platform-independently and
 * declared like every other route (operator access, documented errors).
 */
@ApiTags('Operator: metrics')
@Controller()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  @Endpoint({
    method: 'GET',
    path: METRICS_PATH,
    operationId: 'getMetrics',
    summary: 'Prometheus metrics of this instance',
    description:
      'Requests by route and status, latency, rate-limit refusals, cache lookups, database ' +
      'connections, merchant callbacks, and the Node.js process metrics, in the Prometheus ' +
      'text format.',
    access: 'operator',
    role: 'viewer',
    responses: [
      {
        status: 200,
        description: 'Prometheus text exposition format 0.0.4',
        content: { 'text/plain': { schema: { type: 'string', example: SAMPLE } } },
      },
    ],
  })
  index(): Promise<string> {
    return this.metrics.scrape();
  }
}
