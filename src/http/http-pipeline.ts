import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError } from '../common/errors/api-error.js';
import type { ErrorCode } from '../common/errors/error-catalog.js';
import { ServiceState } from '../common/service-state.js';
import type { AppConfig } from '../config/app-config.js';
import type { MaybePromise } from '../common/maybe-async.js';
import { isDatabaseUnavailable } from '../database/dialect.js';
import { Admission } from './admission.js';
import { ErrorAnswer, answerOf, rawAnswer, writeAnswer } from './error-answer.js';
import { logCompletion, requestIdOf } from './logging.js';
import { classifyPath, type PathInfo } from './paths.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Records what the metrics need of every request. */
export interface RequestObserver {
  requestCompleted(request: IncomingMessage, response: ServerResponse, seconds: number): void;
}

export interface PipelineParts {
  config: AppConfig;
  admission: Admission;
  logger: Logger;
  state: ServiceState;
  /** Headers every answer carries (security headers), computed once. */
  headers: Record<string, string>;
  observer?: RequestObserver;
}

const PATH = Symbol('path');

/** The response a connection is answering now: what shutdown must send with `Connection: close`. */
const ANSWERING = Symbol('answering');
type Connection = Socket & { [ANSWERING]?: ServerResponse };

/** How a request's path was classified by the pipeline. */
export function pathOf(request: IncomingMessage): PathInfo | undefined {
  return (request as IncomingMessage & { [PATH]?: PathInfo })[PATH];
}

/** Node's parser errors that mean "headers too large"; every other one is a malformed request. */
const CLIENT_ERROR_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/**
 * The steps every request takes before and after the platform (Express or Fastify) handles it,
 * installed once on Node's HTTP server, so both platforms behave alike and no spelling of a path
 * can skip them: a request id, the precomputed security headers, admission (api-version, rate
 * limit, credentials), one completion log line. It also answers what Node refuses before any
 * platform sees it (malformed requests, headers too large, a bad Expect, timeouts, CONNECT) with
 * the error envelope, sets the time limits, and drains connections on shutdown.
 */
export class HttpPipeline {
  /**
   * Open connections, and a count of the responses in flight. Not a set of responses: a set that
   * gains and loses an entry per request leaves its old hash tables in the old generation still
   * pointing at young responses, so every young collection kept whole requests alive and promoted
   * them (about 2.5 MB per young collection on the PENDING lookup; 14 % of what was allocated
   * survived a young collection instead of 4 %, costing a third of the throughput).
   */
  private readonly connections = new Set<Connection>();
  private inFlight = 0;
  private readonly headerEntries: [string, string][];
  private draining = false;
  private drained?: () => void;

  constructor(
    private readonly server: Server,
    private readonly parts: PipelineParts,
  ) {
    this.headerEntries = Object.entries(parts.headers);
  }

  /** Puts the pipeline in front of the platform's request listener. */
  install(): void {
    const listeners = this.server.listeners('request') as Listener[];
    if (listeners.length !== 1) throw new Error('Expected one platform request listener');
    const [platform] = listeners;
    this.server.on('connection', (socket: Connection) => {
      socket[ANSWERING] = undefined;
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    this.server.removeAllListeners('request');
    this.server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      this.handle(request, response, platform),
    );
    this.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
      response.shouldKeepAlive = false;
      response.setHeader('x-request-id', requestIdOf(request));
      writeAnswer(response, answerOf(new ApiError('EXPECTATION_FAILED', { field: 'expect' })));
    });
    this.server.on('connect', (_request: IncomingMessage, socket: Socket) => {
      this.answerSocket(
        socket,
        new ApiError('METHOD_NOT_ALLOWED', { message: 'CONNECT is not supported.' }),
      );
    });
    const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = this.parts.config.http;
    // Node checks the time limits of open requests on this interval (30 s by default), and the
    // body of a request is timed against the larger of the two limits.
    Object.assign(this.server, {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: 1000,
    });
  }

  /**
   * Answers a request Node could not read (Express: as the server's 'clientError' listener;
   * Fastify: as its clientErrorHandler, which it would otherwise answer itself).
   */
  readonly onClientError = (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const code = CLIENT_ERROR_CODES[error.code ?? ''] ?? 'MALFORMED_REQUEST';
    const message =
      code === 'MALFORMED_REQUEST' ? 'The request line or headers could not be read.' : undefined;
    this.answerSocket(socket, new ApiError(code, { message }));
  };

  /**
   * Shutdown: no new connections, idle ones closed, requests in flight answered with
   * `Connection: close`; resolves when none is left, or closes what is left at the deadline.
   */
  async drain(deadline: number): Promise<void> {
    this.draining = true;
    // The latest response of each connection: answers pipelined before it still go out first.
    for (const connection of this.connections) {
      const response = connection[ANSWERING];
      if (response && !response.headersSent) response.shouldKeepAlive = false;
    }
    this.server.close();
    this.server.closeIdleConnections();
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      clearTimeout(timer);
    }
    this.server.closeAllConnections();
  }

  private handle(request: IncomingMessage, response: ServerResponse, platform: Listener): void {
    const started = performance.now();
    response.setHeader('x-request-id', requestIdOf(request));
    for (const [name, value] of this.headerEntries) response.setHeader(name, value);
    if (this.draining) response.shouldKeepAlive = false;
    const path = classifyPath(request.url ?? '/', this.parts.config.contextPath);
    (request as IncomingMessage & { [PATH]?: PathInfo })[PATH] = path;
    this.inFlight++;
    const connection = request.socket as Connection;
    connection[ANSWERING] = response;
    // 'close' comes once per response; `on` saves the wrapper `once` would allocate.
    response.on('close', () => {
      this.inFlight--;
      if (connection[ANSWERING] === response) connection[ANSWERING] = undefined;
      const elapsed = performance.now() - started;
      logCompletion(this.parts.logger, request, response, path, elapsed);
      this.parts.observer?.requestCompleted(request, response, elapsed / 1000);
      if (this.draining && this.inFlight === 0) this.drained?.();
    });

    if (this.parts.state.databaseLost && path.policy !== 'public') {
      this.refuse(request, response, databaseLost());
      return;
    }
    let verdict: MaybePromise<ApiError | undefined>;
    try {
      verdict = this.parts.admission.refusal(request, response, path);
    } catch (error) {
      this.refuse(request, response, this.unexpected(error, request));
      return;
    }
    if (verdict instanceof Promise) {
      verdict.then(
        (refusal) => this.admit(request, response, platform, refusal),
        (error: unknown) => this.refuse(request, response, this.unexpected(error, request)),
      );
    } else {
      this.admit(request, response, platform, verdict);
    }
  }

  /** Hands the request to the platform, or answers the refusal admission gave. */
  private admit(
    request: IncomingMessage,
    response: ServerResponse,
    platform: Listener,
    refusal: ApiError | undefined,
  ): void {
    if (refusal) this.refuse(request, response, refusal);
    else platform(request, response);
  }

  /**
   * Answers a request the platform never saw. A body it may carry stays unread, so the
   * connection closes after the answer rather than wait for (or misread) the rest of it.
   */
  private refuse(request: IncomingMessage, response: ServerResponse, error: ApiError): void {
    if (hasBody(request)) response.shouldKeepAlive = false;
    writeAnswer(response, answerOf(error));
  }

  private unexpected(error: unknown, request: IncomingMessage): ApiError {
    if (isDatabaseUnavailable(error)) return new ApiError('SERVICE_UNAVAILABLE');
    this.parts.logger.error(
      { requestId: requestIdOf(request), err: describe(error) },
      'Unexpected error before routing',
    );
    return new ApiError('INTERNAL_ERROR');
  }

  private answerSocket(socket: Socket, error: ApiError): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const answer: ErrorAnswer = answerOf(error);
    this.parts.logger.warn(
      { statusCode: answer.status, errorCode: error.code },
      `Refused before routing: ${answer.status} ${error.code}`,
    );
    socket.end(rawAnswer(answer, STATUS_CODES[answer.status] ?? ''));
  }
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  );
}

function databaseLost(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', {
    message: 'The database file is gone; this instance cannot serve until it is restarted.',
  });
}

function describe(error: unknown): { type: string; message: string; stack?: string } {
  return error instanceof Error
    ? { type: error.name, message: error.message, stack: error.stack }
    : { type: typeof error, message: String(error) };
}
