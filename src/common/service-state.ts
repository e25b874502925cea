import { Injectable } from '@nestjs/common';

/** What makes this instance unready: shutting down, its database file gone, or writes refused. */
@Injectable()
export class ServiceState {
  /** Set on SIGTERM/SIGINT: readiness answers 503 at once while requests in flight finish. */
  draining = false;
  /** Set when the SQLite file was deleted or replaced under the running process. */
  databaseLost = false;
  /** Set while the database refuses writes (full, read only, I/O error); see WriteHealth. */
  writesRefused = false;
  /** While draining: the time (epoch ms) by which the process exits. */
  shutdownDeadline?: number;
}
