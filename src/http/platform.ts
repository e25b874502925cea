import { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../common/errors/api-error.js';
import { JSON_CONTENT_TYPE } from '../common/http/response.js';
import type { HttpPlatform } from '../config/app-config.js';
import { answerOf, writeAnswer } from './error-answer.js';
import { requestIdOf } from './logging.js';
import { keepRequestTarget } from './raw.js';
import { MAX_PARAMETER_LENGTH } from './route-table.js';

/** What the platform calls back into, bound once the application's Node server is watched. */
export interface PlatformHooks {
  /** A request Node could not read (Fastify answers those itself unless told otherwise). */
  clientError(error: Error & { code?: string }, socket: Socket): void;
}

/**
 * A constructor that runs Node's `base` constructor but gives its objects `prototype` (which
 * inherits from `base.prototype`). Node's request and response constructors are plain functions.
 */
function constructorOn<T>(base: T, prototype: object): T {
  // (socket) for a request, (request, options) for a response.
  const init = base as unknown as (this: object, first: unknown, second: unknown) => void;
  function Constructor(this: object, first: unknown, second: unknown): void {
    init.call(this, first, second);
  }
  Constructor.prototype = prototype;
  return Constructor as unknown as T;
}

/**
 * Creates the Nest application on the chosen HTTP platform with the same behaviour on both: no
 * framework banner, no automatic ETag, no body parsing (JSON bodies are read after the access
 * guard, by the JSON body interceptor), paths routed as spelled. This is the only file that knows
 * which platform runs.
 */
export async function createPlatformApp(
  module: DynamicModule,
  platform: HttpPlatform,
  hooks: PlatformHooks,
): Promise<INestApplication> {
  const options = { bufferLogs: true, abortOnError: false, bodyParser: false } as const;
  // Only the chosen platform is loaded: the other one's modules would stay in the heap for nothing.
  if (platform === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    const adapter = new FastifyAdapter({
      // A request without Host is answered with the envelope by the access policy, not by Node.
      http: { requireHostHeader: false },
      routerOptions: {
        // Validation keys have up to 255 characters and longer ones must still reach the
        // application (to be answered, authenticated and counted like any unknown key).
        maxParamLength: MAX_PARAMETER_LENGTH,
      },
      return503OnClosing: false,
      genReqId: requestIdOf,
      clientErrorHandler: (error, socket) => hooks.clientError(error, socket),
      rewriteUrl: routableUrl,
      frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
        const answer = answerOf(new ApiError('NOT_FOUND', { message: error.message }));
        reply.raw.setHeader('x-request-id', requestIdOf(request.raw));
        void reply
          .code(answer.status)
          .headers(answer.headers)
          .type(JSON_CONTENT_TYPE)
          .send(answer.body);
      },
    });
    const fastify = adapter.getInstance() as unknown as FastifyInstance;
    // Every body stays unread for the application: the JSON body interceptor reads the bodies
    // of the routes that take one, once the caller is admitted.
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));
    return NestFactory.create<NestFastifyApplication>(module, adapter, options);
  }
  // Paths match case-sensitively, as on Fastify: `/API/...` is not a route on either platform.
  // Express reads this once, when it creates its router (which Nest's adapter does at once).
  const [{ ExpressAdapter }, { default: express }] = await Promise.all([
    import('@nestjs/platform-express'),
    import('express'),
  ]);
  const instance = express();
  instance.set('case sensitive routing', true);
  instance.set('strict routing', true);
  instance.use((request: IncomingMessage, _response: ServerResponse, next: () => void) => {
    request.url = routableUrl(request);
    next();
  });
  /**
   * Node's server builds each request and response on Express's prototypes from the start.
   * Otherwise Express re-parents both on every request (`Object.setPrototypeOf` in its
   * `app.handle`), and V8 then keeps much of what a request allocates alive through young
   * collections, to be promoted and left for full collections. Express's own call then finds the
   * prototype in place.
   */
  class PrototypedExpressAdapter extends ExpressAdapter {
    /**
     * An answer the envelope interceptor serialised (a string with the JSON content type set) is
     * written as it is: Express's `send` would parse and re-format the Content-Type and turn a
     * body of 1,000 characters or more into a Buffer that Node writes apart from the headers.
     * Anything else (objects, other types, 204 or 304) goes through Express.
     */
    override reply(response: ServerResponse, body: unknown, statusCode?: number): unknown {
      const status = statusCode ?? response.statusCode;
      if (
        typeof body !== 'string' ||
        response.getHeader('content-type') !== JSON_CONTENT_TYPE ||
        status === 204 ||
        status === 304
      ) {
        return super.reply(response, body, statusCode);
      }
      response.statusCode = status;
      response.setHeader('Content-Length', Buffer.byteLength(body));
      return response.end(body);
    }

    override initHttpServer(): void {
      this.setHttpServer(
        createServer(
          {
            IncomingMessage: constructorOn(IncomingMessage, instance.request),
            ServerResponse: constructorOn(ServerResponse, instance.response),
            // A request without Host is answered with the envelope by the access policy.
            requireHostHeader: false,
          },
          instance,
        ),
      );
    }
  }
  const app = await NestFactory.create<NestExpressApplication>(
    module,
    new PrototypedExpressAdapter(instance),
    options,
  );
  app.disable('x-powered-by');
  app.set('etag', false);
  app
    .getHttpServer()
    .on('clientError', (error: Error, socket: Socket) => hooks.clientError(error, socket));
  return app;
}

/**
 * The URL a router can read. Both routers refuse a path they cannot decode before the application
 * sees it (Express while matching a route, Fastify before any hook); such a path is handed on
 * with its escapes kept as text, and the client's own target kept beside it, so the application
 * answers it as a path no route serves.
 */
function routableUrl(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!path.includes('%') || decodes(path)) return url;
  keepRequestTarget(request, url);
  return path.replace(/%/g, '%25') + (query < 0 ? '' : url.slice(query));
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Express only: Nest answers the requests under CONTEXT_PATH that no route serves; this answers
 * the rest (paths outside the prefix) with the same envelope. Registered after init, so after
 * every route.
 */
export function answerUnmatchedRoutes(app: INestApplication, platform: HttpPlatform): void {
  if (platform !== 'express') return;
  app.use((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/')
      .split('?')[0]
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 100);
    writeAnswer(
      response,
      answerOf(new ApiError('NOT_FOUND', { message: `No route ${request.method} ${path}.` })),
    );
  });
}
