import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error.js';
import { ServiceState } from '../common/service-state.js';
import { databaseFileOf } from './dialect.js';

/** How often the file is looked at between writes. */
const CHECK_INTERVAL_MS = 500;

interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * Notices when the SQLite file is deleted or replaced under the running process. The open
 * connection would go on reading and writing the unlinked file, and every write would be lost at
 * the next start. From then on readiness and every database-backed request answer 503, and no
 * write is acknowledged: each transaction checks the file before and after it commits.
 */
@Injectable()
export class DatabaseFileMonitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private path?: string;
  private identity?: FileIdentity;
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly state: ServiceState,
  ) {}

  onApplicationBootstrap(): void {
    this.path = databaseFileOf(this.dataSource);
    if (this.path === undefined) return;
    this.identity = identityOf(this.path);
    this.timer = setInterval(() => void this.checkInBackground(), CHECK_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Throws 503 when the file the connection writes to is no longer the one on disk. */
  assertPresent(): void {
    if (this.path === undefined) return;
    if (!this.state.databaseLost && !sameFile(identityOf(this.path), this.identity)) this.lost();
    if (this.state.databaseLost) {
      throw new ApiError('SERVICE_UNAVAILABLE', {
        message: 'The database file is gone; this instance cannot serve until it is restarted.',
      });
    }
  }

  private async checkInBackground(): Promise<void> {
    if (this.path === undefined || this.state.databaseLost) return;
    const current = await stat(this.path).then(
      (s) => ({ dev: s.dev, ino: s.ino }),
      () => undefined,
    );
    if (!sameFile(current, this.identity)) this.lost();
  }

  private lost(): void {
    if (this.state.databaseLost) return;
    this.state.databaseLost = true;
    this.logger.error(
      { path: this.path },
      'The SQLite file was deleted or replaced; answering 503 until restarted',
    );
  }
}

function identityOf(path: string): FileIdentity | undefined {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

function sameFile(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}
