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
  setInterval(() => destination.flush(), LOG_FLUSH_INTERVAL_MS).unref();
  return logger;
}

const LOG_BLOCK_BYTES = 16 * 1024;
/** Log lines kept while stdout does not take them; newer lines are dropped beyond. */
const LOG_MAX_PENDING_BYTES = 8 * 1024 * 1024;
/** The longest a written line waits in the block before it reaches stdout. */
const LOG_FLUSH_INTERVAL_MS = 250;

/** Writes what is buffered; the process is about to exit. */
export function flushLogger(logger: Logger): void {
  const stream = streamOf(logger) as { flushSync?: () => void };
  try {
    stream.flushSync?.();
  } catch {
    // a destination that cannot flush synchronously has nothing buffered
  }
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
  const { route, latencyMs } = line;
  // The request id and the method need no escaping: the id is a UUID or matched
  // REQUEST_ID_PATTERN, and Node's parser accepts only the methods it knows.
  const method = request.method ?? '';
  const url = JSON.stringify(line.url());
  // The line pino writes for `logger[level](fields, message)`, in its field order, built here
  // rather than by pino's generic serialiser, which took 3–4 % of a status lookup's CPU on
  // Fastify at LOG_LEVEL=info: 0.24 µs against 0.81 µs a line (bench/README.md, "Removed micro-benchmarks"). Level,
  // time and the logger's bindings (pid) still come from the logger; the line goes to its stream.
  const text =
    `${linePrefix(logger, level)},"requestId":"${requestIdOf(request)}"` +
    `,"method":"${method}","url":${url}` +
    (route === undefined ? '' : `,"route":${routeJson(route)}`) +
    (aborted ? ',"aborted":true' : `,"statusCode":${status}`) +
    `,"latencyMs":${Math.round(latencyMs * 10) / 10}` +
    `,"msg":"${method} ${url.slice(1, -1)} ${aborted ? 'aborted' : status}"}\n`;
  streamOf(logger).write(text);
}

/** Route templates are few (one per route): each is escaped once. */
const ROUTE_JSON = new Map<string, string>();
function routeJson(route: string): string {
  let json = ROUTE_JSON.get(route);
  if (json === undefined) ROUTE_JSON.set(route, (json = JSON.stringify(route)));
  return json;
}

type PinoInternals = Record<symbol, unknown>;

/** `{"level":30,"time":…,"pid":…` as the logger itself starts a line at that level. */
function linePrefix(logger: Logger, level: pino.Level): string {
  const internals = logger as unknown as PinoInternals;
  const levels = internals[pino.symbols.lsCacheSym] as Record<number, string>;
  const time = internals[pino.symbols.timeSym] as () => string;
  return `${levels[logger.levels.values[level]]}${time()}${internals[pino.symbols.chindingsSym] as string}`;
}

function streamOf(logger: Logger): DestinationStream {
  return (logger as unknown as PinoInternals)[pino.symbols.streamSym] as DestinationStream;
}
