import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type FSWatcher, accessSync, constants, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error.js';
import { ServiceState } from '../common/service-state.js';
import { databaseFileOf } from './dialect.js';
import type { GroupStage } from './sqlite-group-commit.js';

/** How often the files are looked at between writes, besides the directory's change events. */
const CHECK_INTERVAL_MS = 500;

/** The files of a SQLite database in WAL mode: the database, its write-ahead log, its index. */
const SUFFIXES = ['', '-wal', '-shm'] as const;

interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * The log's index (`-shm`) refuses writes: to the rest of the service, a database that is read
 * only for now (SQLite's own code for that, so that the writes answer 503 and readiness too until
 * a write commits again: isWriteRefusal in dialect.ts).
 */
class IndexRefusesWrites extends Error {
  readonly code = 'SQLITE_READONLY';

  constructor() {
    super("The database's index file (-shm) refuses writes");
  }
}

/**
 * Notices when any of the SQLite database's files (the database, its `-wal` log, its `-shm`
 * index) is deleted or replaced under the running process. The open connection would go on
 * reading and writing the unlinked files, and every write would be lost at the next start. From
 * then on readiness and every database-backed request answer 503, and no write is acknowledged:
 * each transaction checks the files before and after it commits. What was committed before is
 * saved where it can be: when the log or the index was deleted (not replaced) and the database
 * file is still the one on disk, the log the connection still holds is checkpointed into it. A
 * replaced log is left alone: the copy on disk is what the next start reads.
 */
@Injectable()
export class DatabaseFileMonitor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Database');
  private path?: string;
  /** Each file as first seen; a log or index not there yet is taken when it appears. */
  private readonly identities = new Map<string, FileIdentity>();
  private timer?: NodeJS.Timeout;
  private watcher?: FSWatcher;
  /** Saves what the log still holds into the database file (set by the transaction runner). */
  private checkpoint?: () => Promise<void>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly state: ServiceState,
  ) {}

  onApplicationBootstrap(): void {
    this.path = databaseFileOf(this.dataSource);
    if (this.path === undefined) return;
    this.check();
    this.timer = setInterval(() => this.check(), CHECK_INTERVAL_MS).unref();
    const names = new Set(SUFFIXES.map((suffix) => basename(this.path + suffix)));
    try {
      // A file deleted, or another put in its place, is a 'rename'. A 'change' (every write to
      // the log) leaves the file what it was: looking at the files on each would cost three
      // stat calls per event on the write path, and find nothing.
      this.watcher = watch(dirname(this.path), (event, name) => {
        if (event === 'rename' && (name === null || names.has(String(name)))) this.check();
      });
      this.watcher.on('error', () => this.watcher?.close());
      this.watcher.unref();
    } catch {
      // A file system without change events: the interval and the commits still check.
    }
  }

  /** How to checkpoint the log into the database file, between transactions. */
  checkpointWith(checkpoint: () => Promise<void>): void {
    this.checkpoint = checkpoint;
  }

  /** Stops watching before the connection closes, which removes the log and the index itself. */
  onModuleDestroy(): void {
    this.path = undefined;
    clearInterval(this.timer);
    this.watcher?.close();
  }

  /**
   * Throws 503 when a file the connection writes to is no longer the one on disk, or, before a
   * transaction begins or commits and before a statement between transactions (a checkpoint),
   * when the log's index (`-shm`) refuses writes. SQLite keeps the index mapped in memory, and the
   * kernel answers a write to a page of the mapping of an immutable file with SIGBUS, which ends
   * the process (docs/decisions.md, "A frozen shared-memory file"); the file's own answer
   * (access(2) with W_OK: EPERM), asked first, keeps the writes away from the mapping until it
   * takes writes again. After a COMMIT that succeeded the index does not matter: the change is
   * stored. The files are looked at around COMMIT only (a file lost before BEGIN is found before
   * COMMIT all the same); a statement between transactions is the checkpoint that saves what a
   * lost file's log still holds: only the index is asked before it.
   */
  assertPresent(stage: GroupStage): void {
    if (this.path === undefined) return;
    if (stage === 'commit' || stage === 'committed') this.check();
    if (stage !== 'outside' && this.state.databaseLost) {
      throw new ApiError('SERVICE_UNAVAILABLE', {
        message: 'The database file is gone; this instance cannot serve until it is restarted.',
      });
    }
    if (stage !== 'committed' && refusesWrites(`${this.path}-shm`)) throw new IndexRefusesWrites();
  }

  private check(): void {
    if (this.path === undefined || this.state.databaseLost) return;
    const deleted: string[] = [];
    const replaced: string[] = [];
    for (const suffix of SUFFIXES) {
      const file = this.path + suffix;
      const now = identityOf(file);
      const first = this.identities.get(file);
      if (first === undefined) {
        if (now) this.identities.set(file, now);
        else if (suffix === '') deleted.push(file);
      } else if (!now) {
        deleted.push(file);
      } else if (!sameFile(now, first)) {
        replaced.push(file);
      }
    }
    if (deleted.length + replaced.length > 0) this.lost(deleted, replaced);
  }

  private lost(deleted: string[], replaced: string[]): void {
    this.state.databaseLost = true;
    this.logger.error(
      { deleted, replaced },
      'A file of the SQLite database was deleted or replaced; answering 503 until restarted',
    );
    if (replaced.length === 0 && !deleted.includes(this.path!)) void this.saveCommitted();
  }

  /** Copies what the log still held into the database file, which is still on disk. */
  private async saveCommitted(): Promise<void> {
    if (!this.checkpoint) return;
    try {
      await this.checkpoint();
      this.logger.warn('Saved the committed writes into the database file');
    } catch (error) {
      this.logger.error({ err: String(error) }, 'Could not save the committed writes');
    }
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

/** True when the file is there and immutable (access(2) with W_OK answers EPERM). */
function refusesWrites(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sameFile(a: FileIdentity | undefined, b: FileIdentity): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino;
}
