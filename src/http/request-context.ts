import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { LOGGER } from '../logging/logger.token.js';
import { logCompletion, requestIdOf } from '../logging/logging.js';
import { loggableUrl } from '../logging/loggable-url.js';
import { RequestObserver } from './ports.js';
import { rawOf, requestTargetOf } from './raw.js';
import { RouteCatalog } from './routes.js';
import { securityHeaders } from './security-headers.js';

const ROUTE = Symbol('route');

/** Records the template of the route that serves a request (for its log line and metrics). */
export function markRoute(request: IncomingMessage, template: string): void {
  (request as IncomingMessage & { [ROUTE]?: string })[ROUTE] = template;
}

/** The template of the route that served a request; undefined when none did. */
export function routeOf(request: IncomingMessage): string | undefined {
  return (request as IncomingMessage & { [ROUTE]?: string })[ROUTE];
}

/**
 * What every request gets, whatever answers it (a route, the docs, a 404 outside CONTEXT_PATH):
 * its id in `x-request-id`, the security headers, and when it is over one log line and its
 * metrics. The application's one middleware (`app.use`), on both platforms: it runs after the
 * platform has rewritten the URL (src/http/platform.ts), and on Fastify once its router has chosen
 * the route (Fastify runs middleware in its `onRequest` hook).
 */
@Injectable()
export class RequestContext {
  private readonly headers = Object.entries(securityHeaders());

  constructor(
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly routes: RouteCatalog,
    private readonly observer: RequestObserver,
  ) {}

  readonly middleware = (req: unknown, res: unknown, next: () => void): void => {
    this.begin(rawOf<IncomingMessage>(req), rawOf<ServerResponse>(res), requestTargetOf(req));
    next();
  };

  private begin(request: IncomingMessage, response: ServerResponse, target: string): void {
    const started = performance.now();
    response.setHeader('x-request-id', requestIdOf(request));
    for (const [name, value] of this.headers) response.setHeader(name, value);
    // 'close' comes once per response; `on` saves the wrapper `once` would allocate.
    response.on('close', () => {
      const latencyMs = performance.now() - started;
      const route = routeOf(request);
      logCompletion(this.logger, request, response, {
        url: () => loggableUrl(target, this.routes.isRouteWord),
        route,
        latencyMs,
      });
      this.observer.requestCompleted(
        request.method ?? 'GET',
        route,
        response.writableFinished ? response.statusCode : 'aborted',
        latencyMs / 1000,
      );
    });
  }
}
