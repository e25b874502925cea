import type { AppConfig } from '../config/app-config.js';

/** What a start that failed reports: the setting at fault, when the error tells which. */
interface Failure {
  code?: unknown;
  syscall?: unknown;
  message?: unknown;
}

/** The database a DATABASE_URL names, as a line may show it: never its password. */
export function shownDatabaseUrl(url: string): string {
  if (url.startsWith('sqlite:')) return url;
  try {
    const parsed = new URL(url);
    const user = parsed.username === '' ? '' : `${parsed.username}@`;
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return url.split(':')[0];
  }
}

/** PostgreSQL's and Node's codes for "the database named is not there, or not for this user". */
const DATABASE_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections at that host and port',
  ENOTFOUND: 'its host name is not known',
  EAI_AGAIN: 'its host name could not be looked up',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'its host cannot be reached',
  ECONNRESET: 'the server closed the connection',
  '28P01': 'the password was refused',
  '28000': 'the user was refused',
  '3D000': 'the database does not exist',
  SQLITE_CANTOPEN:
    'the SQLite file cannot be opened (a folder that cannot be written, or a path that is not a file)',
  SQLITE_NOTADB: 'the file is not a SQLite database',
  SQLITE_CORRUPT: 'the SQLite file is damaged',
  SQLITE_READONLY: 'the SQLite file cannot be written',
  SQLITE_PERM: 'the SQLite file may not be opened',
  EACCES: 'its folder may not be written',
  ENOTDIR: 'a part of its path is a file, not a folder',
  EEXIST: 'a part of its path is a file, not a folder',
  EROFS: 'its folder is on a read-only file system',
};

/**
 * The line a failed start prints: `Startup failed: <SETTING> (<value>): <why> (<error>)` when the
 * error names the setting at fault — DATABASE_URL for a database that cannot be reached or
 * opened, PORT or HOST for an address that cannot be listened on — else the error's message.
 * Never a password.
 */
export function startupFailureLine(error: unknown, config: AppConfig): string {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as Failure;
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (failure.syscall === 'listen') {
    if (code === 'EADDRNOTAVAIL') {
      return `Startup failed: HOST (${config.host}) is not an address of this machine (${message})`;
    }
    if (code === 'EADDRINUSE') {
      return `Startup failed: PORT (${config.port}) is in use on HOST ${config.host} by another process (${message})`;
    }
    if (code === 'EACCES') {
      return `Startup failed: PORT (${config.port}) may not be listened on by this user (${message})`;
    }
  }
  const cause = code === undefined ? undefined : DATABASE_CAUSES[code];
  if (cause !== undefined) {
    return `Startup failed: DATABASE_URL (${shownDatabaseUrl(config.databaseUrl)}): ${cause} (${withoutPassword(message, config.databaseUrl)})`;
  }
  return `Startup failed: ${withoutPassword(message, config.databaseUrl)}`;
}

/**
 * The message with the database URL's password left out, should a driver ever repeat it (a
 * password too short to tell from other words is left: none is that short in practice).
 */
function withoutPassword(message: string, databaseUrl: string): string {
  try {
    const password = decodeURIComponent(new URL(databaseUrl).password);
    return password.length < 6 ? message : message.split(password).join('***');
  } catch {
    return message;
  }
}
