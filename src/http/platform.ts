import { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../common/errors/api-error.js';
import { MAX_BODY_BYTES } from '../common/errors/error-catalog.js';
import { nestsDeeperThan, tooDeepError } from '../common/http/json-depth.js';
import { JSON_CONTENT_TYPE } from '../common/http/response.js';
import type { HttpPlatform } from '../config/app-config.js';
import { answerOf, writeAnswer } from './error-answer.js';
import { requestIdOf, setRouteTemplate } from './logging.js';

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
 * The headers helmet sets, computed once: they do not depend on the request, and building them
 * per request costs more than the rest of a cached answer.
 */
export function securityHeaders(): Record<string, string> {
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

/** What the platform calls back into, bound once the application's pipeline exists. */
export interface PlatformHooks {
  /** A request Node could not read (Fastify answers those itself unless told otherwise). */
  clientError(error: Error & { code?: string }, socket: Socket): void;
  /** A URL the router could not even decode: the error to answer it with. */
  undecodableUrl(request: IncomingMessage): Promise<ApiError>;
}

/** The methods whose routes may read a JSON body. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

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
 * Creates the Nest application on the chosen HTTP platform with the same behaviour on both:
 * JSON bodies up to 1 MiB and 32 levels deep, no framework banner, no automatic ETag. This is the
 * only file that knows which platform runs.
 */
export async function createPlatformApp(
  module: DynamicModule,
  platform: HttpPlatform,
  hooks: PlatformHooks,
): Promise<INestApplication> {
  const options = { bufferLogs: true, abortOnError: false } as const;
  // Only the chosen platform is loaded: the other one's modules would stay in the heap for
  // nothing (about 3 MB of code and sources, which V8 lets grow about fourfold under load).
  if (platform === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    const adapter = new FastifyAdapter({
      bodyLimit: MAX_BODY_BYTES,
      // Validation keys have up to 255 characters and longer ones must still reach the
      // controller (to be answered, authenticated and counted like any unknown key).
      maxParamLength: 16 * 1024,
      return503OnClosing: false,
      genReqId: requestIdOf,
      clientErrorHandler: (error, socket) => hooks.clientError(error, socket),
      frameworkErrors: (_error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
        void hooks.undecodableUrl(request.raw).then((error) => {
          const answer = answerOf(error);
          void reply
            .code(answer.status)
            .headers(answer.headers)
            .type('application/json; charset=utf-8')
            .send(answer.body);
        });
      },
    });
    const fastify = adapter.getInstance() as unknown as FastifyInstance;
    fastify.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
      setRouteTemplate(request.raw, request.routeOptions.url);
      done();
    });
    useDepthCheckingJsonParser(fastify);
    return NestFactory.create<NestFastifyApplication>(module, adapter, {
      ...options,
      bodyParser: false,
    });
  }
  // Paths match case-sensitively, as on Fastify: `/API/...` is not a route on either platform.
  // Express reads this once, when it creates its router (which Nest's adapter does at once).
  const [{ ExpressAdapter }, { default: express }] = await Promise.all([
    import('@nestjs/platform-express'),
    import('express'),
  ]);
  const instance = express();
  instance.set('case sensitive routing', true);
  /**
   * Node's server builds each request and response on Express's prototypes from the start.
   * Otherwise Express re-parents both on every request (`Object.setPrototypeOf` in its
   * `app.handle`), and V8 then keeps about a fifth of what a request allocates alive through
   * young collections, to be promoted and left for full collections (Express alone, one
   * connection, `--trace-gc-nvp`: 21 % of the young generation survived, against 0 % for
   * node:http and 0 % with this server). Express's own call then finds the prototype in place.
   */
  class PrototypedExpressAdapter extends ExpressAdapter {
    /**
     * A route's own serialised JSON (a string with the JSON content type already set) is
     * written as it is. Express's `send` would parse and re-format the Content-Type and turn a
     * body of 1,000 characters or more into a Buffer, which Node then writes apart from the
     * headers: 41 → 36 µs of CPU per SUCCESSFUL lookup (a 2 KB answer), +10 % throughput. Anything
     * else (objects, other types, an ETag to compare, 204 or 304) goes through Express.
     */
    override reply(response: ServerResponse, body: unknown, statusCode?: number): unknown {
      const status = statusCode ?? response.statusCode;
      if (
        typeof body !== 'string' ||
        response.getHeader('content-type') !== JSON_CONTENT_TYPE ||
        response.hasHeader('etag') ||
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
          },
          instance,
        ),
      );
    }
  }
  const adapter = new PrototypedExpressAdapter(instance);
  const app = await NestFactory.create<NestExpressApplication>(module, adapter, {
    ...options,
    bodyParser: false,
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  // Nest's options type leaves `verify` out (it uses it for raw bodies, which this app does not
  // want); body-parser runs it before parsing, which is where the depth check belongs.
  const json = {
    limit: MAX_BODY_BYTES,
    type: ['application/json', 'application/*+json'],
    verify: (_request: IncomingMessage, _response: ServerResponse, body: Buffer) => {
      if (nestsDeeperThan(body.toString('utf8'))) throw tooDeepError();
    },
  };
  // Only methods whose routes take a body read one (as on Fastify): a GET with a body is not
  // parsed, and the parser costs nothing on the hot GET routes.
  const parseJson = express.json(json);
  app.use((request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) =>
    BODY_METHODS.has(request.method ?? '') ? parseJson(request, response, next) : next(),
  );
  app
    .getHttpServer()
    .on('clientError', (error: Error, socket: Socket) => hooks.clientError(error, socket));
  return app;
}

/** Fastify's JSON parser (with its prototype-poisoning protection) behind the depth check. */
function useDepthCheckingJsonParser(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'ignore');
  fastify.removeContentTypeParser('application/json');
  for (const type of ['application/json', /^application\/[\w.+-]+\+json$/]) {
    fastify.addContentTypeParser(
      type as string,
      { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
      (
        request: FastifyRequest,
        body: string | Buffer,
        done: (error: Error | null, value?: unknown) => void,
      ) => {
        const text = String(body);
        if (nestsDeeperThan(text)) done(tooDeepError());
        else parse(request, text, done);
      },
    );
  }
}

/**
 * Express only: Nest answers unmatched routes under CONTEXT_PATH; this answers the rest (paths
 * outside the prefix) with the same envelope. Registered after init, so after every route.
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
