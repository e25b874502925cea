import { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRANSACTION_NOT_FOUND_BODY, errorItem } from '../common/errors/api-error.js';
import { MAX_BODY_BYTES } from '../common/errors/error-catalog.js';
import { isPaymentStatusPath } from './route-table.js';
import { assignRequestId, requestIdOf } from './logging.js';
import type { HttpPlatform } from '../config/app-config.js';

/**
 * Security headers of helmet. The only HTML the service serves is Swagger UI, whose page needs
 * inline styles and data: images; everything else is JSON.
 */
const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", "'unsafe-inline'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      // The sandbox is served over plain HTTP; upgrading would break the docs page's assets.
      upgradeInsecureRequests: null,
    },
  },
  crossOriginEmbedderPolicy: false,
};

/**
 * The headers helmet sets, computed once. They do not depend on the request, and building them
 * per request (as @fastify/helmet does) costs more than the rest of a cached answer.
 */
function helmetHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const collect = {
    setHeader: (name: string, value: string | number) => (headers[name] = String(value)),
    removeHeader: (name: string) => delete headers[name],
  };
  helmet(HELMET_OPTIONS)(
    {} as IncomingMessage,
    collect as unknown as ServerResponse,
    () => undefined,
  );
  return headers;
}

/**
 * Creates the Nest application on the chosen HTTP platform with the same behaviour on both:
 * JSON bodies up to 1 MiB, helmet's security headers, no framework banner, no automatic ETag.
 * This is the only file that knows which platform runs.
 */
export async function createPlatformApp(
  module: DynamicModule,
  platform: HttpPlatform,
  contextPath: string,
): Promise<INestApplication> {
  const options = { bufferLogs: true, abortOnError: false } as const;
  if (platform === 'fastify') {
    const adapter = new FastifyAdapter({
      bodyLimit: MAX_BODY_BYTES,
      // Validation keys have up to 255 characters and longer ones must still reach the
      // controller (to be answered, authenticated and counted like any unknown key).
      maxParamLength: 16 * 1024,
      return503OnClosing: false,
      genReqId: requestIdOf,
      frameworkErrors: (_error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
        // A URL that cannot be decoded never reaches Nest; answer it like Nest would.
        const notFound = isPaymentStatusPath(request.url, contextPath)
          ? TRANSACTION_NOT_FOUND_BODY
          : JSON.stringify({ errors: [errorItem('NOT_FOUND')] });
        void reply
          .code(404)
          .header('content-type', 'application/json; charset=utf-8')
          .header('x-request-id', request.id)
          .send(notFound);
      },
    });
    const securityHeaders = helmetHeaders();
    adapter.getInstance().addHook('onRequest', (request, reply, done) => {
      reply.headers(securityHeaders);
      reply.header('x-request-id', request.id);
      done();
    });
    return NestFactory.create<NestFastifyApplication>(module, adapter, options);
  }
  const app = await NestFactory.create<NestExpressApplication>(module, {
    ...options,
    bodyParser: false,
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  // The request id is chosen before the body is parsed, so a refused body (malformed, too
  // large) still echoes it; pino-http keeps an id that is already set.
  app.use(
    (request: IncomingMessage & { id?: string }, response: ServerResponse, next: () => void) => {
      request.id = assignRequestId(request, response);
      next();
    },
  );
  app.useBodyParser('json', {
    limit: MAX_BODY_BYTES,
    type: ['application/json', 'application/*+json'],
  });
  app.use(helmet(HELMET_OPTIONS));
  return app;
}

/**
 * Express only: Nest answers unmatched routes under CONTEXT_PATH; this answers the rest (paths
 * outside the prefix) with the same envelope. Registered after init, so after every route.
 */
export function answerUnmatchedRoutes(app: INestApplication, platform: HttpPlatform): void {
  if (platform !== 'express') return;
  const body = JSON.stringify({ errors: [errorItem('NOT_FOUND')] });
  // The request id was set by the first middleware (see createPlatformApp).
  app.use((_request: IncomingMessage, response: ServerResponse) => {
    response.statusCode = 404;
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.end(body);
  });
}
