import { Injectable, NestMiddleware, Optional } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../common/errors/api-error.js';
import { AccessPolicy } from './access-policy.js';
import { callerOf } from '../merchants/caller.js';
import { markRoute } from './request-context.js';
import { pathOf } from './paths.js';
import { UnservedRequestPolicy } from './ports.js';
import { rawOf, requestTargetOf } from './raw.js';
import { RouteTable } from './route-table.js';

/**
 * Requests that no route serves as spelled: odd spellings (`/API/…`, `/api/./…`, `//api`,
 * `/%61pi/…`, a trailing slash, an undecodable escape) and unknown paths. The routers would read
 * some of them one way on Express and another on Fastify; here both answer alike. Such a request
 * is still admitted like the routes of its area (an `/api` path needs a key and is counted), then
 * answered by the feature that owns its path (a status lookup that missed), else 405 or 404.
 */
@Injectable()
export class UnservedRequestMiddleware implements NestMiddleware {
  constructor(
    private readonly routes: RouteTable,
    private readonly access: AccessPolicy,
    @Optional() private readonly policy?: UnservedRequestPolicy,
  ) {}

  use(req: unknown, res: unknown, next: () => void): void | Promise<void> {
    const request = rawOf<IncomingMessage>(req);
    const method = request.method ?? 'GET';
    const url = requestTargetOf(req);
    const route = this.routes.match(method, url);
    if (route) {
      markRoute(request, route.template);
      next();
      return;
    }
    // Outside CONTEXT_PATH as spelled (Fastify's router and middleware read the prefix in
    // another case, or decoded): no route, as on Express.
    if (!this.routes.isBelowPrefix(url)) throw this.notServed(method, url);
    return this.refuse(request, rawOf<ServerResponse>(res), method, url);
  }

  private async refuse(
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
    url: string,
  ): Promise<never> {
    const { segments, access } = this.routes.areaOf(url);
    await this.access.admit(request, response, {
      access,
      role: 'viewer',
      action: UNKNOWN_ROUTE,
      status: 404,
    });
    const caller = callerOf(request);
    throw (
      (await this.policy?.errorFor({ method, segments, caller })) ?? this.notServed(method, url)
    );
  }

  private notServed(method: string, url: string): ApiError {
    const allowed = this.routes.methodsFor(url);
    if (allowed.length > 0) {
      return new ApiError('METHOD_NOT_ALLOWED', { headers: { Allow: allowed.join(', ') } });
    }
    return new ApiError('NOT_FOUND', { message: `No route ${method} ${printable(pathOf(url))}.` });
  }
}

/** What the audit trail calls a refused request to an operator path that no route serves. */
export const UNKNOWN_ROUTE = 'unknownRoute';

/** At most a short, printable path: the message never carries more than the route. */
function printable(path: string): string {
  const shown = path.replace(/[^\x20-\x7e]/g, '?');
  return shown.length > 100 ? `${shown.slice(0, 100)}…` : shown;
}
