import { Injectable, Logger } from '@nestjs/common';
import { ServiceState } from '../common/service-state.js';
import { isWriteRefusal } from './dialect.js';

/**
 * Whether the database takes writes: set when it refuses one (a full disk, a read-only file or
 * database, an I/O error: see isWriteRefusal), cleared by the next commit that succeeds, whoever
 * makes it (a write request, or the readiness check's probe). While it is set, readiness answers
 * 503; write requests are still tried, and answer 503 as long as the database refuses them.
 */
@Injectable()
export class WriteHealth {
  private readonly logger = new Logger('Database');

  constructor(private readonly state: ServiceState) {}

  /** A transaction failed; when the database refused its writes, the instance is not ready. */
  refused(error: unknown): void {
    if (!isWriteRefusal(error)) return;
    if (!this.state.writesRefused) {
      this.logger.warn(
        { err: String(error) },
        'The database refuses writes; answering 503 to them and to readiness until it takes them again',
      );
    }
    this.state.writesRefused = true;
  }

  /** A transaction committed: the database takes writes. */
  committed(): void {
    if (!this.state.writesRefused) return;
    this.state.writesRefused = false;
    this.logger.log('The database takes writes again');
  }
}
