import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service.js';
import { DepositKeyRepository } from './deposit-keys.repository.js';

/**
 * `deposit_address_gap` in /metrics: the gap of every merchant's current deposit key, read from
 * the database at each scrape, so every instance shows the deployment's figure.
 */
@Injectable()
export class DepositGapMetric {
  constructor(metrics: MetricsService, keys: DepositKeyRepository) {
    metrics.readDepositGapsFrom(() => keys.gaps());
  }
}
