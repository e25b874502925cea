import { QueryFailedError, type QueryRunner } from 'typeorm';

/**
 * What differs between the databases this service runs on. Everything else in the code is
 * written once for all of them.
 */

/** Driver error codes that mean "the database cannot answer now", not "a bug". */
const UNAVAILABLE_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  '57P01',
  '57P03',
]);

/** True when the error says the database is unreachable, busy or read-only for now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = candidate?.driverError?.code ?? candidate?.code;
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code);
}

/** True when an insert or update broke a unique constraint (another writer got there first). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: unknown } | undefined)?.code;
  return code === '23505' || /UNIQUE constraint failed/i.test(error.message);
}

/** Timestamp column type of a migration. */
export function timestampType(queryRunner: QueryRunner): string {
  return queryRunner.connection.driver.options.type === 'postgres' ? 'timestamptz' : 'datetime';
}
