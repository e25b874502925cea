import { RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { redactValidationKey } from '../common/masking.js';
import {
  PAYMENT_SESSIONS_ADMIN_PATH,
  PAYMENT_STATUS_PATH,
} from '../payment-status/payment-status.routes.js';

/** An incoming x-request-id is echoed only when it is short and printable. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's x-request-id when it is acceptable, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}

/** Picks the request's id and echoes it on the response (Express; pino-http's generator). */
export function assignRequestId(request: IncomingMessage, response: ServerResponse): string {
  const id = requestIdOf(request);
  response.setHeader('x-request-id', id);
  return id;
}

/** Paths that carry a validation key: the merchant's status lookup and the operator's routes. */
const VALIDATION_KEY_PATH = new RegExp(
  `(/(?:${[PAYMENT_STATUS_PATH, PAYMENT_SESSIONS_ADMIN_PATH].join('|')})/)([^/?#]*)`,
);

/** The URL as it may be logged: a validation key shows only its first characters. */
export function loggableUrl(url: string | undefined): string {
  if (!url) return '';
  return url.replace(VALIDATION_KEY_PATH, (_all, prefix: string, key: string) => {
    let decoded = key;
    try {
      decoded = decodeURIComponent(key);
    } catch {
      // keep the raw text; it is redacted all the same
    }
    return `${prefix}${redactValidationKey(decoded)}`;
  });
}

/**
 * Structured JSON request logs. Only chosen fields are serialised: no header (so no API key or
 * admin token), no body (so no personal data), and URLs with validation keys cut to 6 characters.
 */
export function loggerParams(config: AppConfig, stream?: DestinationStream): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      stream,
      genReqId: assignRequestId,
      customAttributeKeys: { reqId: 'requestId', responseTime: 'latencyMs' },
      serializers: {
        // pino-http binds the request to a child logger on every request, logged or not; the
        // request's fields go on the completion line only (customSuccessObject below).
        req: () => undefined,
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        err: (err: { type?: string; message?: string; stack?: string }) => ({
          type: err?.type,
          message: err?.message,
          stack: err?.stack,
        }),
      },
      customSuccessObject: (req, _res, line) => ({ ...requestFields(req), ...line }),
      customErrorObject: (req, _res, _err, line) => ({ ...requestFields(req), ...line }),
      customSuccessMessage: (req, res) =>
        `${req.method} ${loggableUrl(fullUrl(req))} ${res.statusCode}`,
      customErrorMessage: (req, res) =>
        `${req.method} ${loggableUrl(fullUrl(req))} ${res.statusCode}`,
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      // Both platforms give the raw request its id before this runs (see platform.ts);
      // pino-http keeps an existing req.id and only calls genReqId without one.
      quietReqLogger: true,
      quietResLogger: true,
      redact: {
        paths: [
          'req.headers',
          'headers',
          'key',
          'apiKey',
          'authorization',
          'validationKey',
          'paymentResponse',
          '*.paymentResponse',
        ],
        censor: '[redacted]',
      },
    },
    // Every path, unmatched ones included, so 404s are logged with their request id too.
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
  };
}

/** What a request's completion line says about the request. */
function requestFields(req: IncomingMessage) {
  return { method: req.method, url: loggableUrl(fullUrl(req)), route: routeOf(req) };
}

/** Express strips a middleware's mount path from req.url; originalUrl keeps it. */
export function fullUrl(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url;
}

function routeOf(req: IncomingMessage): string | undefined {
  const withRoute = req as IncomingMessage & {
    route?: { path?: string };
    routeOptions?: { url?: string };
  };
  return withRoute.route?.path ?? withRoute.routeOptions?.url;
}
