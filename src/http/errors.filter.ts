import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../common/errors/api-error.js';
import type { ErrorCode } from '../common/errors/error-catalog.js';
import { MAX_JSON_DEPTH } from '../common/http/json-depth.js';
import { isDatabaseUnavailable } from '../database/dialect.js';
import { answerOf, writeAnswer } from './error-answer.js';
import { requestIdOf } from './logging.js';
import { NotFoundAnswers } from './not-found.js';

/**
 * The one place where failures in routes become HTTP answers: every non-2xx response is the error
 * envelope, with nothing internal in it. Unexpected errors are logged with their stack and the
 * request id; the client sees only INTERNAL_ERROR.
 */
@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorsFilter');

  constructor(private readonly notFound: NotFoundAnswers) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = raw<IncomingMessage>(http.getRequest());
    const response = raw<ServerResponse>(http.getResponse());
    this.errorOf(exception, request).then(
      (error) => writeAnswer(response, answerOf(error)),
      (failure: unknown) => {
        this.logUnexpected(failure, request);
        writeAnswer(response, answerOf(new ApiError('INTERNAL_ERROR')));
      },
    );
  }

  private async errorOf(exception: unknown, request: IncomingMessage): Promise<ApiError> {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof NotFoundException || isUndecodablePath(exception)) {
      return this.notFound.errorFor(request);
    }
    const code = codeOf(exception);
    if (code === 'MALFORMED_REQUEST' && isTooDeep(exception)) {
      return new ApiError(code, {
        message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
      });
    }
    if (code === 'SERVICE_UNAVAILABLE') {
      this.logger.warn(
        { requestId: requestIdOf(request), err: describe(exception) },
        'Service unavailable',
      );
    }
    if (code === 'INTERNAL_ERROR') this.logUnexpected(exception, request);
    return new ApiError(code);
  }

  private logUnexpected(exception: unknown, request: IncomingMessage): void {
    this.logger.error(
      { requestId: requestIdOf(request), err: describe(exception) },
      'Unexpected error',
    );
  }
}

function isTooDeep(exception: unknown): boolean {
  const cause = (exception as { cause?: unknown })?.cause ?? exception;
  return (cause as { code?: unknown })?.code === 'JSON_TOO_DEEP';
}

/** Fastify hands filters its own request and reply objects; both wrap Node's. */
function raw<T>(value: unknown): T {
  return ((value as { raw?: T }).raw ?? value) as T;
}

/** A path the platform could not decode: it names nothing, like an unknown route. */
function isUndecodablePath(exception: unknown): boolean {
  const cause = (exception as { cause?: unknown })?.cause ?? exception;
  return statusOf(exception) === 400 && cause instanceof URIError;
}

function codeOf(exception: unknown): ErrorCode {
  const status = statusOf(exception);
  // The platform wraps body-parser errors; their cause tells what really happened.
  const cause = (exception as { cause?: unknown })?.cause ?? exception;
  const type = (cause as { type?: unknown })?.type;
  const platformCode = (cause as { code?: unknown })?.code;
  if (
    type === 'entity.parse.failed' ||
    type === 'entity.too.deep' ||
    platformCode === 'JSON_TOO_DEEP' ||
    platformCode === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    platformCode === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    (status === 400 && cause instanceof SyntaxError)
  ) {
    return 'MALFORMED_REQUEST';
  }
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  if (status === 404) return 'NOT_FOUND';
  if (status === 400) return 'INVALID_PARAMETER';
  if (isDatabaseUnavailable(exception)) return 'SERVICE_UNAVAILABLE';
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
