import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../common/errors/api-error.js';
import type { ErrorCode } from '../common/errors/error-catalog.js';
import { isDatabaseUnavailable } from '../database/dialect.js';
import { answerOf } from './error-answer.js';
import { ClientAborted } from '../common/http/json-body.js';
import { requestIdOf } from '../logging/logging.js';
import { pathOf } from './paths.js';
import { rawOf, requestTargetOf } from './raw.js';
import { Unserved } from './unserved.js';
import { JSON_CONTENT_TYPE } from '../common/http/response.js';

/**
 * The one place where failures become HTTP answers: every non-2xx response is the error envelope,
 * with nothing internal in it. Unexpected errors are logged with their stack and the request id;
 * the client sees only INTERNAL_ERROR. A request answered before its body was read closes its
 * connection after the answer, rather than wait for (or misread) the rest of the body. The answer
 * goes out through the platform's adapter (Nest's HttpAdapterHost), like a route's.
 */
@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorsFilter');

  constructor(
    private readonly unserved: Unserved,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = rawOf<IncomingMessage>(http.getRequest());
    const response: unknown = http.getResponse();
    const adapter = this.adapterHost.httpAdapter;
    // The client is gone: there is no one to answer (the request's line says `aborted`).
    if (exception instanceof ClientAborted) {
      rawOf<ServerResponse>(response).destroy();
      return;
    }
    const error = this.errorOf(exception, request); // logs what was not expected
    // An answer already under way cannot become another one: the connection is cut.
    if (adapter.isHeadersSent(response)) {
      rawOf<ServerResponse>(response).destroy();
      return;
    }
    const answer = answerOf(error);
    if (!request.complete) adapter.setHeader(response, 'Connection', 'close');
    for (const [name, value] of Object.entries(answer.headers)) {
      adapter.setHeader(response, name, value);
    }
    adapter.setHeader(response, 'Content-Type', JSON_CONTENT_TYPE);
    adapter.reply(response, answer.body, answer.status);
  }

  private errorOf(exception: unknown, request: IncomingMessage): ApiError {
    if (exception instanceof ApiError) return exception;
    const code = codeOf(exception);
    if (code === 'NOT_FOUND') {
      // No route (Nest's not-found handler), or a docs file that is not there: 405 or 404.
      return this.unserved.notServed(request.method ?? 'GET', pathOf(requestTargetOf(request)));
    }
    if (code === 'SERVICE_UNAVAILABLE') {
      this.logger.warn(
        { requestId: requestIdOf(request), err: describe(exception) },
        'Service unavailable',
      );
    }
    if (code === 'INTERNAL_ERROR') {
      this.logger.error(
        { requestId: requestIdOf(request), err: describe(exception) },
        'Unexpected error',
      );
    }
    return new ApiError(code);
  }
}

/** What an error the application did not raise itself (the platform's, a driver's) means. */
function codeOf(exception: unknown): ErrorCode {
  const status = statusOf(exception);
  const cause = (exception as { cause?: unknown })?.cause ?? exception;
  // A path the platform could not decode names nothing, like an unknown route; the docs' file
  // server refuses the paths it will not serve with a 403 that means the same.
  if (cause instanceof URIError || status === 404 || status === 403) return 'NOT_FOUND';
  if (status === 405) return 'METHOD_NOT_ALLOWED';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503 || isDatabaseUnavailable(exception)) return 'SERVICE_UNAVAILABLE';
  if (status === 400) return 'INVALID_PARAMETER';
  return 'INTERNAL_ERROR';
}

function statusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const candidate = exception as { status?: unknown; statusCode?: unknown } | null;
  const status = candidate?.statusCode ?? candidate?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}

function describe(exception: unknown): { type: string; message: string; stack?: string } {
  if (exception instanceof Error) {
    return { type: exception.name, message: exception.message, stack: exception.stack };
  }
  return { type: typeof exception, message: String(exception) };
}
