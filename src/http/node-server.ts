import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server as NetServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError } from '../common/errors/api-error.js';
import type { ErrorCode } from '../common/errors/error-catalog.js';
import type { HttpTimeoutsConfig } from '../config/app-config.js';
import { answerOf, rawAnswer, writeAnswer, type ErrorAnswer } from './error-answer.js';
import { requestIdOf } from '../logging/logging.js';
import { closeAfter } from '../common/http/response.js';

/** Node's parser errors that mean "headers too large" or a timeout; the rest are malformed. */
const CLIENT_ERROR_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/** Parser errors that mean the client closed the connection, not that it sent something wrong. */
const CLIENT_GONE = new Set(['ECONNRESET', 'HPE_INVALID_EOF_STATE']);

/** The response a connection is answering: what draining must mark. */
const ANSWERING = Symbol('answering');
/** While draining: since when a connection has been seen quiet, and the bytes it had read then. */
const QUIET_SINCE = Symbol('quietSince');
type Connection = Socket & {
  [ANSWERING]?: ServerResponse;
  [QUIET_SINCE]?: { at: number; bytesRead: number };
};

/**
 * While draining, a connection with nothing to answer for this long is closed. A client sending
 * requests back to back is never quiet that long: it gets its next answer with
 * `Connection: close` instead of a reset.
 */
export const DRAIN_QUIET_MS = 500;

/**
 * How often Node's server checks the time limits of open requests (its `createServer` option;
 * 30 s by default, which would let a request outlive its limit by as much).
 */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;
const DRAIN_CHECK_MS = 100;
/**
 * A check this much later than due follows a stall of the process: what connections seem to have
 * been quiet for, they may only have been unread for (see closeQuietConnections).
 */
const DRAIN_CHECK_LATE_MS = 2 * DRAIN_CHECK_MS;

/**
 * What Node's HTTP server does before any platform or Nest sees a request, the same on both
 * platforms: the time limits; the envelope (with `Connection: close`) for requests Node cannot
 * read (malformed, headers too large, not received in time), for an `Expect` header and for
 * CONNECT; and draining the connections on shutdown.
 */
export class NodeServer {
  private readonly connections = new Set<Connection>();
  private draining = false;
  private drained?: () => void;
  /** When closeQuietConnections last ran. */
  private lastQuietCheck = 0;

  constructor(
    private readonly server: Server,
    private readonly logger: Logger,
  ) {}

  /** Applies the time limits and starts watching connections. */
  attach(timeouts: HttpTimeoutsConfig): void {
    // Node's documented server properties (the body of a request is timed against the larger of
    // the first two); Node checks them every CONNECTIONS_CHECKING_INTERVAL_MS (platform.ts).
    this.server.headersTimeout = timeouts.headersTimeoutMs;
    this.server.requestTimeout = timeouts.requestTimeoutMs;
    this.server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
    this.server.on('connection', (socket: Connection) => {
      this.connections.add(socket);
      socket.once('close', () => {
        this.connections.delete(socket);
        if (this.draining && this.connections.size === 0) this.drained?.();
      });
    });
    this.server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      const connection = request.socket as Connection;
      connection[ANSWERING] = response;
      // Forgotten once it is over: a kept-alive connection would otherwise hold its last request
      // and response, and all they reference, until its next request, and carry them through
      // every young collection (bench/README.md, "A kept-alive connection held its last
      // response"). 'close' comes once per response; `on` saves the wrapper `once` would allocate.
      response.on('close', () => {
        if (connection[ANSWERING] === response) connection[ANSWERING] = undefined;
      });
      if (this.draining) closeAfter(response);
    });
    this.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
      closeAfter(response);
      const requestId = requestIdOf(request);
      const error = new ApiError('EXPECTATION_FAILED', { field: 'expect' });
      response.setHeader('x-request-id', requestId);
      writeAnswer(response, this.refused(error, requestId, 'Refused before routing'));
    });
    this.server.on('connect', (request: IncomingMessage, socket: Socket) => {
      this.answerSocket(
        socket,
        new ApiError('METHOD_NOT_ALLOWED', { message: 'CONNECT is not supported.' }),
        requestIdOf(request),
        'Refused before routing',
      );
    });
  }

  /**
   * Answers a request Node could not read (Express: as the server's 'clientError' listener;
   * Fastify: as its clientErrorHandler, which it would otherwise answer itself).
   */
  readonly onClientError = (error: Error & { code?: string }, socket: Socket): void => {
    // The client went away (mid-request: the parser reports the end of its input as an invalid
    // state): no one to answer; the request itself, if it had begun, is logged as aborted.
    if (CLIENT_GONE.has(error.code ?? '') || socket.destroyed) {
      socket.destroy();
      return;
    }
    // A connection that has not sent a byte when its time runs out (a browser opens spare
    // connections ahead of need and may keep one unused for 10 s) is closed without an answer:
    // no one waits for one, and a 408 written there could meet the request the browser sends on
    // it at that moment and become its answer. A closed idle connection is one the browser
    // sends again on another.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0) {
      socket.destroy();
      return;
    }
    const code = CLIENT_ERROR_CODES[error.code ?? ''] ?? 'MALFORMED_REQUEST';
    const message =
      code === 'MALFORMED_REQUEST' ? 'The request line or headers could not be read.' : undefined;
    // A request whose headers Node read (its body did not arrive in time) keeps its id; otherwise
    // Node read no request, and its x-request-id, if any, is not known.
    const response = (socket as Connection)[ANSWERING];
    const reading = response !== undefined && !response.writableFinished;
    this.answerSocket(
      socket,
      new ApiError(code, { message }),
      reading ? requestIdOf(response.req) : randomUUID(),
      reading ? 'Refused while its body was read' : 'Refused before routing',
    );
  };

  /**
   * Shutdown: no new connection is accepted; every request in flight or still to come on an open
   * connection is answered, with `Connection: close`; a connection that has had nothing to answer
   * for DRAIN_QUIET_MS (no request, not a byte of one) is closed. Closing a kept-alive connection
   * at once would cut off a request its client is sending at that moment. Resolves when every
   * connection is gone, or closes what is left at the deadline.
   */
  async drain(deadline: number): Promise<void> {
    this.draining = true;
    for (const connection of this.connections) {
      const response = connection[ANSWERING];
      if (response) closeAfter(response);
    }
    // net.Server's documented close(), called on the HTTP server it is the base class of: stops
    // listening. Node's http close() would also close the idle connections at once, cutting off a
    // request a client is sending on one; Node has no documented way to stop listening alone
    // (docs/decisions.md, "Documented APIs only").
    NetServer.prototype.close.call(this.server);
    if (this.connections.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      // Each check runs after the event loop's I/O phase (setImmediate), never in the timers
      // phase before it: bytes already waiting in the kernel are read first, so a connection whose
      // next request has arrived is not taken for a quiet one.
      const quiet = setInterval(
        () => setImmediate(() => this.closeQuietConnections()),
        DRAIN_CHECK_MS,
      );
      this.closeQuietConnections();
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        if (this.connections.size === 0) resolve();
      });
      clearInterval(quiet);
      clearTimeout(timer);
    }
    this.server.closeAllConnections();
  }

  /**
   * Closes the connections seen with nothing to answer, and no byte read, for DRAIN_QUIET_MS. A
   * check that runs more than DRAIN_CHECK_LATE_MS late (the process stalled: a long task, a busy
   * machine) closes nothing and starts every connection's quiet time again: during the stall no
   * byte could be read, so that time says nothing about the clients.
   */
  private closeQuietConnections(): void {
    const now = Date.now();
    const late =
      this.lastQuietCheck > 0 && now - this.lastQuietCheck > DRAIN_CHECK_MS + DRAIN_CHECK_LATE_MS;
    this.lastQuietCheck = now;
    for (const connection of this.connections) {
      if (late) {
        connection[QUIET_SINCE] = { at: now, bytesRead: connection.bytesRead };
        continue;
      }
      const response = connection[ANSWERING];
      const quiet = connection[QUIET_SINCE];
      const answering = response !== undefined && !response.writableFinished;
      if (answering || !quiet || quiet.bytesRead !== connection.bytesRead) {
        connection[QUIET_SINCE] = { at: now, bytesRead: connection.bytesRead };
      } else if (now - quiet.at >= DRAIN_QUIET_MS) {
        connection.destroy();
      }
    }
  }

  private answerSocket(socket: Socket, error: ApiError, requestId: string, when: string): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const answer = this.refused(error, requestId, when);
    answer.headers['x-request-id'] = requestId;
    socket.end(rawAnswer(answer, STATUS_CODES[answer.status] ?? ''));
  }

  /** The answer to a request refused by Node's server, and its log line. */
  private refused(error: ApiError, requestId: string, when: string): ErrorAnswer {
    const answer = answerOf(error);
    this.logger.warn(
      { requestId, statusCode: answer.status, errorCode: error.code },
      `${when}: ${answer.status} ${error.code}`,
    );
    return answer;
  }
}
