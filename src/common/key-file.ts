import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A key of 32 bytes kept by the SQLite sandbox in a file beside its database file (`name`, the
 * base64 of the key on one line, readable by its owner only), generated the first time; an
 * in-memory database (`sqliteFile` undefined or `:memory:`) gets a key that lives as long as the
 * process. Production configures its keys instead (see src/config/app-config.ts).
 */
export function sandboxKey(sqliteFile: string | undefined, name: string): Buffer {
  if (sqliteFile === undefined || sqliteFile === ':memory:') return randomBytes(32);
  const file = join(dirname(sqliteFile), name);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process (the seed script, say) wrote it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold the base64 of 32 bytes`);
  return key;
}
