import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFile } from 'node:fs/promises';
import { DataSource } from 'typeorm';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import { SeedRejected, SeedRunner, SeedSummary } from '../seeding/seed-runner.js';
import { validateSeed } from '../seeding/seed-validation.js';

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

export const USAGE = 'usage: npm run seed -- <file.json> [--dry-run]';

/**
 * `npm run seed -- <file> [--dry-run]`: validates the whole file, then (unless dry-run) runs
 * pending migrations and applies it in one transaction. Returns the exit code: 0 on success,
 * 1 on any bad record (nothing written), 2 on bad usage.
 */
export async function seedCommand(args: string[], config: AppConfig, io: Output): Promise<number> {
  const dryRun = args.includes('--dry-run');
  const files = args.filter((arg) => arg !== '--dry-run');
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
  if (!validation.ok) {
    for (const error of validation.errors) io.err(`${file}: ${error.field}: ${error.message}`);
    io.err(`${file}: ${validation.errors.length} error(s); nothing was written`);
    return 1;
  }
  const { seed } = validation;
  if (dryRun) {
    io.out(
      `${file}: valid (${seed.cryptoPairs?.length ?? 0} crypto pairs, ${seed.merchants?.length ?? 0} merchants, ` +
        `${seed.paymentSessions?.length ?? 0} payment sessions); dry run, nothing written`,
    );
    return 0;
  }
  const context = await seedContext(config);
  try {
    const summary = await context.get(SeedRunner).run(seed);
    io.out(`${file}: ${describe(summary)}`);
    return 0;
  } catch (error) {
    if (!(error instanceof SeedRejected)) throw error;
    for (const e of error.errors) io.err(`${file}: ${e.field}: ${e.message}`);
    io.err(`${file}: ${error.errors.length} error(s); nothing was written`);
    return 1;
  } finally {
    await context.close();
  }
}

/** An application context on the configured database, migrated, without HTTP. */
export async function seedContext(config: AppConfig): Promise<INestApplicationContext> {
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
    logger: false,
  });
  await context.get(DataSource).runMigrations({ transaction: 'each' });
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
