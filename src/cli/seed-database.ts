import { existsSync, linkSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { sqlitePath } from '../database/dialect.js';

/** The database a seed run writes to, and what becomes of it when the run ends. */
export interface SeedDatabase {
  config: AppConfig;
  /** After a committed real run, with the database closed. */
  keep(): void;
  /** After a refused file or a dry run, with the database closed. */
  discard(): void;
}

/**
 * A SQLite file that does not exist yet is built in a temporary file beside it, which becomes the
 * database only when a real run commits: a refused file or a dry run leaves no database file
 * behind. Any other database is written in place, inside the run's transaction.
 */
export function seedDatabase(config: AppConfig): SeedDatabase {
  const inPlace = { config, keep: () => undefined, discard: () => undefined };
  if (!config.databaseUrl.startsWith('sqlite:')) return inPlace;
  const path = sqlitePath(config.databaseUrl);
  if (path === ':memory:' || existsSync(path)) return inPlace;
  const temporary = join(dirname(path), `.${basename(path)}.seeding-${process.pid}`);
  const remove = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      rmSync(temporary + suffix, { force: true });
  };
  return {
    config: { ...config, databaseUrl: `sqlite:${temporary}` },
    keep() {
      try {
        linkSync(temporary, path); // fails if the file appeared meanwhile: never replaced
      } catch (error) {
        remove();
        throw new Error(
          `${path} appeared while the seed file was written; nothing was written to it (${(error as Error).message})`,
          { cause: error },
        );
      }
      remove();
    },
    discard: remove,
  };
}
