import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { DataSource, MigrationExecutor } from 'typeorm';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import type { FieldError } from '../common/validation.js';
import { runMigrationsOnce, sqlitePath } from '../database/dialect.js';
import type { Tx } from '../database/transactions.js';
import { managerOf } from '../database/typeorm-transactions.js';
import { SeedRejected, SeedRunner, SeedSummary } from '../seeding/seed-runner.js';
import { validateSeed } from '../seeding/seed-validation.js';

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

export const USAGE = 'usage: npm run seed -- <file.json> [--dry-run] [--callbacks]';

/**
 * `npm run seed -- <file> [--dry-run]`: validates the whole file, runs pending migrations and
 * applies it in one transaction. A dry run does all of that, migrations included, in a
 * transaction it rolls back: it refuses exactly what the real run refuses and writes nothing.
 * Returns the exit code: 0 on success, 1 on any bad record (nothing written), 2 on bad usage.
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
  let content: unknown;
  try {
    content = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const reason =
      error instanceof SyntaxError ? `not valid JSON (${error.message})` : 'cannot be read';
    io.err(`${file}: ${reason}`);
    return 1;
  }
  const validation = await validateSeed(content);
  if (!validation.ok) return refused(io, file, validation.errors);

  const context = dryRun
    ? await seedContext(dryRunConfig(config), { migrate: false })
    : await seedContext(config);
  try {
    const runner = context.get(SeedRunner);
    const dataSource = context.get(DataSource);
    const summary = await runner.run(
      validation.seed,
      dryRun
        ? { dryRun, callbacks, prepare: (tx) => migrateWithin(dataSource, tx) }
        : { callbacks },
    );
    io.out(
      dryRun
        ? `${file}: dry run, nothing written; the file would load ${describe(summary)}`
        : `${file}: ${describe(summary)}`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SeedRejected)) throw error;
    return refused(io, file, error.errors);
  } finally {
    await context.close();
  }
}

/** One line per refused record, then the count: the same for a real run and a dry run. */
function refused(io: Output, file: string, errors: FieldError[]): number {
  for (const error of errors) io.err(`${file}: ${error.field}: ${error.message}`);
  io.err(`${file}: ${errors.length} error(s); nothing was written`);
  return 1;
}

/**
 * A SQLite file that does not exist yet is an empty database: a dry run against it uses an
 * empty in-memory one instead, so that it does not leave a new file behind.
 */
function dryRunConfig(config: AppConfig): AppConfig {
  if (!config.databaseUrl.startsWith('sqlite:')) return config;
  const path = sqlitePath(config.databaseUrl);
  return path === ':memory:' || existsSync(path)
    ? config
    : { ...config, databaseUrl: 'sqlite::memory:' };
}

/** Runs the pending migrations inside the caller's transaction, so they roll back with it. */
async function migrateWithin(dataSource: DataSource, tx: Tx): Promise<void> {
  const executor = new MigrationExecutor(dataSource, managerOf(tx).queryRunner);
  executor.transaction = 'all'; // the transaction already open: the caller's
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
  return (
    `${summary.cryptoPairs.given} crypto pairs (${summary.cryptoPairs.changed} added or changed), ` +
    `${summary.merchants.given} merchants (${summary.merchants.changed} added or changed), ` +
    `${s.created + s.updated + s.unchanged} payment sessions (${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged)`
  );
}
