import type { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { BlockWriter } from './log-destination.js';

/**
 * Logs are JSON lines (pino). There is no per-request logger: a request's one completion line
 * carries its fields, and anything logged about a request names its `requestId` itself.
 * Nothing from headers or bodies is ever logged; URLs appear only in their loggable form (see
 * loggableUrl), so no API key, admin token, full validation key or personal data is written.
 */
export function createLogger(config: AppConfig, stream?: DestinationStream): Logger {
  if (stream) return pino({ level: config.logLevel, base: { pid: process.pid } }, stream);
  // Lines are written in blocks of 16 KB rather than one system call each, and at least every
  // LOG_FLUSH_INTERVAL_MS when traffic is low.
  const destination = new BlockWriter(1, {
    blockBytes: LOG_BLOCK_BYTES,
    maxPendingBytes: LOG_MAX_PENDING_BYTES,
  });
  const logger = pino({ level: config.logLevel, base: { pid: process.pid } }, destination);
  DESTINATIONS.set(logger, destination);
  setInterval(() => destination.flush(), LOG_FLUSH_INTERVAL_MS).unref();
  return logger;
}

/**
 * The destination createLogger gave each logger: flushLogger writes what it holds. pino's own
 * `logger.flush()` only starts an asynchronous write, which an exiting process would not wait for.
 */
const DESTINATIONS = new WeakMap<Logger, BlockWriter>();

const LOG_BLOCK_BYTES = 16 * 1024;
/** Log lines kept while stdout does not take them; newer lines are dropped beyond. */
const LOG_MAX_PENDING_BYTES = 8 * 1024 * 1024;
/** The longest a written line waits in the block before it reaches stdout. */
const LOG_FLUSH_INTERVAL_MS = 250;

/** Writes what is buffered; the process is about to exit. */
export function flushLogger(logger: Logger): void {
  // A logger given its own stream (the tests) writes each line at once: nothing is buffered.
  DESTINATIONS.get(logger)?.flushSync();
}

const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/**
 * Nest's `Logger` through the same pino logger: Nest's own messages (start-up, unexpected
 * errors) and the service's. Every line has its text in `msg`, and `context` names only the
 * component (the name a `Logger` is created with). The service logs in one form, pino's, on a
 * `Logger` created with its component's name:
 *
 *   logger.warn('Redis unreachable');                      // a message
 *   logger.warn({ err: String(error) }, 'Could not …');   // fields, then the message
 *
 * Nest's Logger hands its context over last; Nest's own errors come as (message, stack).
 */
export class NestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    // Nest's own start-up story (modules loaded, routes mapped) is detail: debug, not info.
    const context = params[params.length - 1];
    const level = typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : 'info';
    this.write(level, message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const rest = params.filter((param) => param !== undefined);
    const context = rest.length > 0 ? rest.pop() : undefined;
    const fields: Record<string, unknown> = typeof context === 'string' ? { context } : {};
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      // pino's form: the fields, then the message.
      const text = rest.find((param) => typeof param === 'string');
      this.logger[level]({ ...fields, ...(message as object) }, text as string);
      return;
    }
    // Nest's form: a message, and for an error its stack.
    const stack =
      message instanceof Error ? message.stack : rest.find((p) => typeof p === 'string');
    if (typeof stack === 'string') fields.stack = stack;
    this.logger[level](fields, message instanceof Error ? message.message : String(message));
  }
}

/** An incoming x-request-id is echoed only when it is short and printable. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const REQUEST_ID = Symbol('requestId');

type Tagged = IncomingMessage & { [REQUEST_ID]?: string };

/** The request's id: the caller's x-request-id when acceptable, else a new UUID; fixed once chosen. */
export function requestIdOf(request: IncomingMessage): string {
  const tagged = request as Tagged;
  if (tagged[REQUEST_ID] === undefined) {
    const given = request.headers['x-request-id'];
    tagged[REQUEST_ID] =
      typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
  }
  return tagged[REQUEST_ID];
}

/**
 * The completion line of a request: `requestId`, `method`, `url` (loggable form), `route`,
 * `statusCode`, `latencyMs`; level warn for 4xx, error for 5xx. A request whose connection
 * closed before its answer was complete says `"aborted":true` instead of a status (level warn):
 * whatever status was set then never reached the client.
 */
export function logCompletion(
  logger: Logger,
  request: IncomingMessage,
  response: ServerResponse,
  line: { url: () => string; route: string | undefined; latencyMs: number },
): void {
  const aborted = !response.writableFinished;
  const status = response.statusCode;
  const level = aborted || status >= 400 ? (status >= 500 && !aborted ? 'error' : 'warn') : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const method = request.method ?? '';
  const url = line.url();
  // Written by pino's own call: about 0.7 µs a line more than a line built by hand from pino's
  // internals, which an upgrade of pino could break (bench/README.md, "Removed micro-benchmarks
  // and scripts").
  const fields: CompletionFields = { requestId: requestIdOf(request), method, url };
  if (line.route !== undefined) fields.route = line.route;
  if (aborted) fields.aborted = true;
  else fields.statusCode = status;
  fields.latencyMs = Math.round(line.latencyMs * 10) / 10;
  logger[level](fields, `${method} ${url} ${aborted ? 'aborted' : status}`);
}

/** The fields of a completion line, in the order they are written. */
interface CompletionFields {
  requestId: string;
  method: string;
  url: string;
  route?: string;
  aborted?: true;
  statusCode?: number;
  latencyMs?: number;
}
