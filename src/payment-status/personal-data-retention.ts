import { Inject, Injectable, Logger } from '@nestjs/common';
import { PeriodicSweep } from '../common/periodic-sweep.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseFiles } from '../database/database-files.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { PaymentSessionService } from './payment-session.service.js';

/** Sessions erased per transaction. */
export const RETENTION_BATCH = 500;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Erases the personal data of sessions that have been final for PERSONAL_DATA_RETENTION_DAYS
 * (0: never), every PERSONAL_DATA_SWEEP_SECONDS, in batches; only sessions that hold some are
 * looked at, counted and marked. It keeps no state of its own: a
 * restart picks up where the stored sessions say; with several instances each batch locks the
 * sessions it erases and the others skip them. When it runs: PeriodicSweep.
 */
@Injectable()
export class PersonalDataRetention extends PeriodicSweep {
  private readonly logger = new Logger('PersonalData');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: PaymentSessionService,
    private readonly files: DatabaseFiles,
    private readonly metrics: MetricsService,
  ) {
    super();
  }

  /** Starts sweeping (the schema must be in place: after migrations). */
  start(): void {
    if (this.config.personalData.retentionDays === 0) return;
    this.startEvery(this.config.personalData.sweepSeconds * 1000);
  }

  /** Erases what is due at `now`, batch after batch; how many sessions it erased. */
  protected async due(now: number): Promise<number> {
    const finalBefore = now - this.config.personalData.retentionDays * DAY_MS;
    let total = 0;
    try {
      for (;;) {
        const { examined, erased } = await this.sessions.eraseExpired(finalBefore, RETENTION_BATCH);
        total += erased;
        if (examined < RETENTION_BATCH || this.stopped) break;
      }
    } catch (error) {
      this.logger.warn({ err: String(error) }, 'Could not erase personal data past retention');
    }
    if (total > 0) {
      this.metrics.personalDataErased(total, 'retention');
      this.logger.log({ sessions: total }, 'Erased personal data past retention');
      await this.files.dropOldPageVersions();
    }
    return total;
  }
}
