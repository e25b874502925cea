import { Inject, Injectable, Logger } from '@nestjs/common';
import { PeriodicSweep } from '../common/periodic-sweep.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { isDatabaseUnavailable } from '../database/dialect.js';
import { CHECKOUT_BATCH, CheckoutService } from './checkout.service.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Every CHECKOUT_EXPIRY_SWEEP_SECONDS: expires the checkouts whose tokens have all expired
 * (NOT_COMPLETED, EXPIRED, with the callback), and erases the customer and address of checkouts
 * that ended PERSONAL_DATA_RETENTION_DAYS ago. It keeps no state of its own: with several
 * instances each batch locks the checkouts it takes and the others skip them, and a restart
 * picks up where the stored checkouts say. When it runs: PeriodicSweep.
 */
@Injectable()
export class CheckoutExpiry extends PeriodicSweep {
  private readonly logger = new Logger('Checkout');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checkouts: CheckoutService,
  ) {
    super();
  }

  /** Starts sweeping (the schema must be in place: after migrations). */
  start(): void {
    this.startEvery(this.config.checkout.expirySweepSeconds * 1000);
  }

  /** Expires (and erases) what is due at `now`, batch after batch; how many checkouts it expired. */
  protected async due(now: number): Promise<number> {
    let expired = 0;
    try {
      for (;;) {
        const batch = await this.checkouts.expireDue(now);
        expired += batch;
        if (batch < CHECKOUT_BATCH || this.stopped) break;
      }
      const days = this.config.personalData.retentionDays;
      if (days > 0) {
        while (!this.stopped) {
          if ((await this.checkouts.eraseStale(now - days * DAY_MS, now)) < CHECKOUT_BATCH) break;
        }
      }
    } catch (error) {
      const log = isDatabaseUnavailable(error) ? 'warn' : 'error';
      this.logger[log]({ err: String(error) }, 'Could not expire checkouts');
    }
    if (expired > 0) this.logger.log({ checkouts: expired }, 'Expired checkouts');
    return expired;
  }
}
