import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  ApiError,
  ErrorItem,
  TRANSACTION_NOT_FOUND_BODY,
  errorItem,
} from '../common/errors/api-error.js';
import {
  ErrorCode,
  ErrorKind,
  SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS,
} from '../common/errors/error-catalog.js';
import { RouteTable } from './route-table.js';
import { isDatabaseUnavailable } from '../database/dialect.js';
import { loggableUrl } from './logging.js';

interface Outcome {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * The one place where failures become HTTP answers: every non-2xx response is the error
 * envelope, with nothing internal in it. Unexpected errors are logged with their stack (the
 * logger adds the request id); the client sees only INTERNAL_ERROR.
 */
@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorsFilter');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly routes: RouteTable,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<unknown>();
    const response = http.getResponse<unknown>();
    const adapter = this.adapterHost.httpAdapter;
    const method = String(adapter.getRequestMethod(request)).toUpperCase();
    const url = String(adapter.getRequestUrl(request));

    const outcome = this.outcomeOf(exception, method, url);
    this.logRefusedBeforeRouting(request, method, url, outcome.status);
    for (const [name, value] of Object.entries(outcome.headers)) {
      adapter.setHeader(response, name, value);
    }
    adapter.setHeader(response, 'Content-Type', 'application/json; charset=utf-8');
    adapter.reply(response, outcome.body, outcome.status);
  }

  /**
   * A request refused before the request logger ran (a body that is not JSON or too large on
   * Express, an undecodable URL) still gets its log line, with its id.
   */
  private logRefusedBeforeRouting(request: unknown, method: string, url: string, status: number) {
    const seen = request as { log?: unknown; raw?: { log?: unknown }; id?: unknown };
    if (seen.log !== undefined || seen.raw?.log !== undefined) return;
    const logged = loggableUrl(url);
    this.logger.warn(
      { requestId: seen.id, method, url: logged, statusCode: status },
      `${method} ${logged} ${status}`,
    );
  }

  private outcomeOf(exception: unknown, method: string, url: string): Outcome {
    if (exception instanceof ApiError) {
      if (exception.code === 'TRANSACTION_FAILED') return notFoundTransaction();
      return envelope(exception.status, exception.items, exception.headers);
    }
    const code = this.codeOf(exception, method, url);
    if (code === 'TRANSACTION_FAILED') return notFoundTransaction();
    const headers: Record<string, string> = {};
    if (code === 'SERVICE_UNAVAILABLE') {
      headers['Retry-After'] = String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS);
      this.logger.warn({ err: describe(exception) }, 'Service unavailable');
    }
    if (code === 'METHOD_NOT_ALLOWED') {
      headers['Allow'] = this.routes.methodsFor(url).join(', ');
    }
    if (code === 'INTERNAL_ERROR') {
      this.logger.error({ err: describe(exception) }, 'Unexpected error');
    }
    const message =
      code === 'NOT_FOUND' ? `No route ${method} ${pathOf(url)}.` : ErrorKind[code].message;
    return envelope(ErrorKind[code].status, [errorItem(code, message)], headers);
  }

  private codeOf(exception: unknown, method: string, url: string): ErrorCode {
    if (exception instanceof NotFoundException) {
      // Nest answers an unmatched route with a NotFoundException.
      if ((method === 'GET' || method === 'HEAD') && this.routes.isPaymentStatusPath(url)) {
        return 'TRANSACTION_FAILED';
      }
      return this.routes.methodsFor(url).length > 0 ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND';
    }
    const status = statusOf(exception);
    // The platform wraps body-parser and URI errors; their cause tells what really happened.
    const cause = (exception as { cause?: unknown })?.cause ?? exception;
    const type = (cause as { type?: unknown })?.type;
    const platformCode = (cause as { code?: unknown })?.code;
    if (status === 400 && cause instanceof URIError && this.routes.isPaymentStatusPath(url)) {
      // A key that cannot even be decoded is still just an unknown key.
      return 'TRANSACTION_FAILED';
    }
    if (
      type === 'entity.parse.failed' ||
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
}

function envelope(status: number, items: ErrorItem[], headers: Record<string, string>): Outcome {
  return { status, body: JSON.stringify({ errors: items }), headers };
}

function notFoundTransaction(): Outcome {
  return { status: 404, body: TRANSACTION_NOT_FOUND_BODY, headers: {} };
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

function pathOf(url: string): string {
  const path = url.split('?')[0];
  // Echo at most a short, printable path: the message must never carry more than the route.
  const printable = path.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 100 ? `${printable.slice(0, 100)}…` : printable;
}
