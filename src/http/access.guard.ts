import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ACCESS, type DeclaredAccess } from '../access/declared-access.js';
import { AccessPolicy } from '../access/access-policy.js';
import { pathOf } from './paths.js';
import { clientAddressOf } from './platform.js';
import { rawOf, requestTargetOf } from './raw.js';
import { markRoute } from './request-context.js';
import { RouteCatalog, spells, type Route } from './routes.js';
import { Unserved } from './unserved.js';

/**
 * Who may call a route, read from the access its `@Endpoint` declares (public, merchant,
 * operator) and applied by the access policy: the key or the bearer token, and the general rate
 * limit. A route that declares nothing is refused: access is never assumed.
 *
 * The routers are lenient (case, escapes, dot segments: see platform.ts); a request that reached
 * a route without spelling it as declared is admitted like that route, then answered as one no
 * route serves (Unserved). One that spelled it gets the route's template for its log line.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly declared = new WeakMap<object, Declared>();

  constructor(
    private readonly reflector: Reflector,
    private readonly policy: AccessPolicy,
    private readonly routes: RouteCatalog,
    private readonly unserved: Unserved,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<{ params?: Record<string, string> }>();
    const raw = rawOf<IncomingMessage>(request);
    const { declared, routes } = this.declaredOf(context.getHandler());
    const path = pathOf(requestTargetOf(raw));
    const spelled = path.split('/');
    const served = routes.find((r) => !r.catchAll && spells(r, spelled));
    // The route it reached (a handler serves one route per path, aliases included).
    const route = served ?? routes.find((r) => r.segments.length === spelled.length) ?? routes[0];
    if (served) {
      markRoute(raw, served.template);
      if (path.includes(';')) spelledParameters(served, spelled, request);
    }
    const admitted = this.policy.admit(
      raw,
      rawOf<ServerResponse>(http.getResponse()),
      declared,
      clientAddressOf(request),
      declared.access === 'operator' ? targetOf(served ? request.params : undefined, path) : null,
    );
    if (served || route.catchAll) {
      return admitted instanceof Promise ? admitted.then(() => true) : true;
    }
    return Promise.resolve(admitted).then(async () => {
      throw await this.unserved.errorFor(raw, route.local);
    });
  }

  private declaredOf(handler: object): Declared {
    let found = this.declared.get(handler);
    if (found === undefined) {
      const declared = this.reflector.get<DeclaredAccess | undefined>(
        ACCESS,
        handler as () => unknown,
      );
      if (declared === undefined) {
        throw new Error('A route without @Endpoint: its access is not declared');
      }
      const routes = this.routes.routesOf(handler);
      if (routes.length === 0) throw new Error('A route the route catalog does not know');
      found = { declared, routes };
      this.declared.set(handler, found);
    }
    return found;
  }
}

interface Declared {
  declared: DeclaredAccess;
  routes: readonly Route[];
}

/**
 * The routers were handed the path with each segment's `;params` dropped (paths.ts), which a
 * parameter keeps: it is the whole segment the client sent (`semi;colon` is a validation key, not
 * `semi`). Positions match, as the target spells the route segment for segment.
 */
function spelledParameters(
  route: Route,
  spelled: readonly string[],
  request: { params?: Record<string, string> },
): void {
  const params = (request.params ??= {});
  route.segments.forEach((word, i) => {
    if (word.startsWith(':')) params[word.slice(1)] = decodeURIComponent(spelled[i]);
  });
}

/**
 * What an operator request acted on, as the audit trail names it: the last path parameter of the
 * route it spelled; for a request no route serves as spelled, its path as the client spelled it
 * (the routers' parameters are of the path it means, which may name something else).
 */
function targetOf(params: Record<string, string> | undefined, path: string): string | null {
  const values = params ? Object.values(params) : [path];
  return values.length > 0 ? String(values[values.length - 1]).slice(0, 300) : null;
}
