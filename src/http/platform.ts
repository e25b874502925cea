import { DynamicModule, INestApplication, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../common/errors/api-error.js';
import { JSON_CONTENT_TYPE } from '../common/http/response.js';
import type { HttpPlatform, TrustProxy } from '../config/app-config.js';
import { answerOf } from './error-answer.js';
import { requestIdOf } from '../logging/logging.js';
import { keepRequestTarget } from './raw.js';
import { routableUrl } from './paths.js';
import { MAX_PARAMETER_LENGTH } from './routes.js';
import { CONNECTIONS_CHECKING_INTERVAL_MS } from './node-server.js';

/** What the platform calls back into, bound once the application's Node server is watched. */
export interface PlatformHooks {
  /** A request Node could not read (Fastify answers those itself unless told otherwise). */
  clientError(error: Error & { code?: string }, socket: Socket): void;
}

/** What the platform is, and which peers it takes for proxies (TRUST_PROXY). */
export interface PlatformSettings {
  platform: HttpPlatform;
  trustProxy: TrustProxy;
}

/**
 * Creates the Nest application on the chosen HTTP platform with the same behaviour on both: no
 * framework banner, no automatic ETag, no body parsing (JSON bodies are read after the access
 * guard, by the JSON body interceptor), paths routed as meant (see routableUrl), the client's
 * address as each platform's own `trust proxy` setting gives it (clientAddressOf). This is the
 * only file that knows which platform runs.
 */
export async function createPlatformApp(
  module: DynamicModule,
  { platform, trustProxy }: PlatformSettings,
  hooks: PlatformHooks,
  logger: LoggerService,
): Promise<INestApplication> {
  // The application's logger from the start: what Nest logs while it builds the application, a
  // failure included, is a line of the application's log, never Nest's own console format.
  const options = { logger, abortOnError: false, bodyParser: false } as const;
  // Only the chosen platform is loaded: the other one's modules would stay in the heap for nothing.
  if (platform === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    const adapter = new FastifyAdapter({
      // A request without Host is answered with the envelope by the access policy, not by Node.
      http: {
        requireHostHeader: false,
        connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
      },
      routerOptions: {
        // Validation keys have up to 255 characters and longer ones must still reach the
        // application (to be answered, authenticated and counted like any unknown key).
        maxParamLength: MAX_PARAMETER_LENGTH,
        caseSensitive: false,
      },
      return503OnClosing: false,
      // `request.ip`: the connection's peer, or what X-Forwarded-For says behind trusted proxies.
      trustProxy: trustProxy === false ? false : [...trustProxy],
      genReqId: requestIdOf,
      clientErrorHandler: (error, socket) => hooks.clientError(error, socket),
      rewriteUrl: routedUrl,
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
  // Both routers match paths whatever their case and are given the path a target means (see
  // routableUrl): the access guard then finds whether the target spelled its route. Express reads
  // these settings once, when it creates its router (which Nest's adapter does at once).
  const [{ ExpressAdapter }, { default: express }] = await Promise.all([
    import('@nestjs/platform-express'),
    import('express'),
  ]);
  const instance = express();
  instance.set('case sensitive routing', false);
  instance.set('strict routing', false);
  // `req.ip`: the connection's peer, or what X-Forwarded-For says behind trusted proxies.
  instance.set('trust proxy', trustProxy === false ? false : [...trustProxy]);
  instance.use((request: IncomingMessage, _response: ServerResponse, next: () => void) => {
    request.url = routedUrl(request);
    next();
  });
  /**
   * Node's server builds each request and response on Express's prototypes from the start
   * (Node's documented `IncomingMessage`/`ServerResponse` options). Otherwise Express re-parents
   * both on every request (`Object.setPrototypeOf` in its `app.handle`), and V8 keeps much of what
   * a request allocates alive through young collections. Measured: about half the server CPU per
   * request (docs/decisions.md, "Express's prototypes"); test/request-edges.e2e-spec.ts checks it.
   */
  class PlatformExpressAdapter extends ExpressAdapter {
    override initHttpServer(): void {
      // A request without Host is answered with the envelope by the access policy.
      this.setHttpServer(
        createServer(
          {
            IncomingMessage: constructorOn(IncomingMessage, instance.request),
            ServerResponse: constructorOn(ServerResponse, instance.response),
            requireHostHeader: false,
            connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
          },
          instance,
        ),
      );
    }
  }
  const app = await NestFactory.create<NestExpressApplication>(
    module,
    new PlatformExpressAdapter(instance),
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
 * The address of the client a request comes from, as the rate limits count it (`ip:<address>`):
 * the platform's own `ip` (Express's `req.ip`, Fastify's `request.ip`), which is the connection's
 * peer unless TRUST_PROXY names the proxies in front (then the address X-Forwarded-For gives past
 * them); the peer itself on a request the platform has not wrapped.
 */
export function clientAddressOf(request: object): string {
  const ip = (request as { ip?: unknown }).ip;
  if (typeof ip === 'string' && ip !== '') return `ip:${ip}`;
  return `ip:${(request as { socket?: { remoteAddress?: string } }).socket?.remoteAddress ?? 'unknown'}`;
}

/** The URL the router reads (see routableUrl); the client's own target is kept beside it. */
function routedUrl(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const routable = routableUrl(url);
  if (routable === undefined) return url;
  keepRequestTarget(request, url);
  return routable;
}

/**
 * A constructor for Node's server (its documented `IncomingMessage` / `ServerResponse` options)
 * whose objects have `prototype`, Express's `app.request` or `app.response` (its documented
 * extension points, built on Node's prototypes), and are initialised by Node's own constructor,
 * called on them. Node's are functions, not classes: `Reflect.construct` with a new target, the
 * form a class would need, measured about five times the CPU a request (docs/decisions.md,
 * "Documented APIs only"), so a class is refused here, at start, by name.
 */
function constructorOn<T>(base: T, prototype: object): T {
  const init = base as unknown as (this: object, first: unknown, second: unknown) => void;
  if (String(init).startsWith('class')) {
    throw new Error(
      `Node's ${init.name} is a class: src/http/platform.ts (constructorOn) cannot build it on ` +
        "Express's prototypes",
    );
  }
  function Constructor(this: object, first: unknown, second: unknown): void {
    init.call(this, first, second);
  }
  Constructor.prototype = prototype;
  return Constructor as unknown as T;
}
