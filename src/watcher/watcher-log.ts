import pino, { type DestinationStream, type Logger } from 'pino';
import { BaseError } from 'viem';
import type { LogLevel } from '../config/app-config.js';

/**
 * The watcher's logs: JSON lines through pino, in the service's form (`level`, `time`, `pid`,
 * `msg`). The operator token is never handed to the logger, and URLs appear only as their origin:
 * a node provider's key often travels in the RPC URL's path or query.
 */
export function createWatcherLogger(level: LogLevel, stream?: DestinationStream): Logger {
  const options = { level, base: { pid: process.pid } };
  // Standard output written line by line, synchronously: the process ends with process.exit(),
  // and pino's default asynchronous stream then wrote the line still being written after the
  // lines it flushed at exit ("Watcher stopped" before "Stopping after the round under way"),
  // in about one SIGTERM of four. The watcher writes a few lines a round.
  return pino(options, stream ?? pino.destination({ dest: 1, sync: true }));
}

/** The scheme, host and port of a URL: what a log line may say of it. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * A one-line description of an error for the logs. viem's messages carry the request's URL and
 * body; its short message and details are enough and carry neither.
 */
export function describeError(error: unknown): string {
  if (error instanceof BaseError) {
    const details = error.details && error.details !== error.shortMessage ? error.details : '';
    return oneLine(details ? `${error.shortMessage} (${details})` : error.shortMessage);
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return oneLine(`${error.message}${cause}`);
  }
  return oneLine(String(error));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}
