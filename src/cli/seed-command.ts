import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { DataSource, MigrationExecutor } from 'typeorm';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import type { FieldError } from '../common/validation.js';
import { lockMigrations, runMigrationsOnce } from '../database/dialect.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import { SeedFileSyntaxError } from '../seeding/seed-file-reader.js';
import type { SeedProgress } from '../seeding/seed-progress.js';
import { SeedRejected, SeedRunner, SeedSummary } from '../seeding/seed-runner.js';
import { seedDatabase } from './seed-database.js';

export interface Output {
  out(line: string): void;
  err(line: string): void;
  /** How the reading of a large file is shown (none when absent). */
  progress?(file: string): SeedProgress;
}

export const USAGE = 'usage: npm run seed -- <file.json> [--dry-run] [--callbacks]';

/**
 * `npm run seed -- <file> [--dry-run]`: reads the file as a stream and, in one transaction, runs
 * pending migrations, checks every record and writes it; prints the tokens of the operators it
 * created, once. A file with any bad record is rolled
 * back whole; a dry run does all of that and rolls back in any case, so it refuses exactly what
 * the real run refuses and writes nothing. Returns the exit code: 0 on success, 1 on any bad
 * record (nothing written), 2 on bad usage.
 */
export async function seedCommand(args: string[], config: AppConfig, io: Output): Promise<number> {
  const dryRun = args.includes('--dry-run');
  const callbacks = args.includes('--callbacks');
  const files = args.filter((arg) => arg !== '--dry-run' && arg !== '--callbacks');
  if (files.length !== 1 || files[0].startsWith('-')) {
    io.err(USAGE);
    return 2;
  }
  const file = files[0];
  const size = await readableSize(file);
  if (size === undefined) {
    io.err(`${file}: cannot be read`);
    return 1;
  }
  const database = seedDatabase(config);
  const context = await seedContext(database.config, { migrate: false });
  const progress = io.progress?.(file);
  let committed = false;
  try {
    const dataSource = context.get(DataSource);
    const summary = await context.get(SeedRunner).loadFile(file, size, {
      dryRun,
      callbacks,
      progress,
      prepare: (tx) => migrateWithin(dataSource, tx),
    });
    committed = !dryRun;
    progress?.stop();
    io.out(
      dryRun
        ? `${file}: dry run, nothing written; the file would load ${describe(summary)}`
        : `${file}: ${describe(summary)}`,
    );
    for (const { name, role, token } of summary.tokens) {
      io.out(`${file}: operator ${name} (${role}) created; its token, shown only now: ${token}`);
    }
    return 0;
  } catch (error) {
    progress?.stop();
    if (error instanceof SeedRejected) return refused(io, file, error.errors);
    if (error instanceof SeedFileSyntaxError) {
      io.err(`${file}: not valid JSON (${error.message})`);
      return 1;
    }
    if (isReadError(error)) {
      io.err(`${file}: cannot be read`);
      return 1;
    }
    throw error;
  } finally {
    await context.close();
    if (committed) database.keep();
    else database.discard();
  }
}

/** One line per refused record, then the count: the same for a real run and a dry run. */
function refused(io: Output, file: string, errors: FieldError[]): number {
  for (const error of errors) io.err(`${file}: ${error.field}: ${error.message}`);
  io.err(`${file}: ${errors.length} error(s); nothing was written`);
  return 1;
}

/** The size of a regular file this process may read; undefined otherwise. */
async function readableSize(file: string): Promise<number | undefined> {
  try {
    await access(file, constants.R_OK);
    const info = await stat(file);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}

function isReadError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && ['ENOENT', 'EACCES', 'EISDIR', 'EIO', 'EPERM'].includes(code);
}

/**
 * Runs the pending migrations inside the caller's transaction, so they roll back with it; on
 * PostgreSQL under the lock instances take to migrate (see runMigrationsOnce).
 */
async function migrateWithin(dataSource: DataSource, tx: Tx): Promise<void> {
  const executor = new MigrationExecutor(dataSource, managerOf(tx).queryRunner);
  executor.transaction = 'none'; // inside the transaction already open: the caller's
  if ((await executor.getPendingMigrations()).length === 0) return;
  await lockMigrations(managerOf(tx).queryRunner!);
  await executor.executePendingMigrations();
}

/** An application context on the configured database, without HTTP; migrated unless told not to. */
export async function seedContext(
  config: AppConfig,
  options: { migrate: boolean } = { migrate: true },
): Promise<INestApplicationContext> {
  // The seed script stores callbacks (with --callbacks); the running service delivers them.
  const quiet = { ...config, callbacks: { ...config.callbacks, enabled: false } };
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(quiet), {
    logger: false,
  });
  if (options.migrate) await runMigrationsOnce(context.get(DataSource));
  return context;
}

export function describe(summary: SeedSummary): string {
  const s = summary.paymentSessions;
  const o = summary.operators;
  return (
    `${summary.cryptoPairs.given} crypto pairs (${summary.cryptoPairs.changed} added or changed), ` +
    `${summary.merchants.given} merchants (${summary.merchants.changed} added or changed), ` +
    `${s.created + s.updated + s.unchanged} payment sessions (${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged)` +
    (o.given > 0
      ? `, ${o.given} operators (${o.created} created, ${o.changed} given a new role)`
      : '')
  );
}
