import { Controller, DynamicModule, Injectable, Module, Req, SetMetadata } from '@nestjs/common';
import type { HttpPlatform } from '../config/app-config.js';
import { ApiExcludeController } from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../common/errors/api-error.js';
import { callerOf } from '../access/caller.js';
import { ACCESS, type DeclaredAccess } from '../access/declared-access.js';
import { pathOf } from './paths.js';
import { UnservedRequestPolicy } from './ports.js';
import { rawOf, requestTargetOf } from './raw.js';
import { Mapped, RouteCatalog } from './routes.js';

/** What the audit trail calls a refused request to an operator path that no route serves. */
export const UNKNOWN_ROUTE = 'unknownRoute';

/**
 * The answer to a request no route serves as spelled, once it was admitted like the route it
 * reached (a catch-all of its area, or a route it spells otherwise): the feature's that owns the
 * route (a status lookup that missed), else 405 with `Allow` when the path as spelled is served
 * with other methods, else 404.
 */
@Injectable()
export class Unserved {
  constructor(
    private readonly routes: RouteCatalog,
    private readonly policy: UnservedRequestPolicy,
  ) {}

  /** `route`: the local template of the route the request reached. */
  async errorFor(request: IncomingMessage, route: string): Promise<ApiError> {
    const method = request.method ?? 'GET';
    const caller = callerOf(request);
    const owned = await this.policy.errorFor({ method, route, caller });
    return owned || this.notServed(method, pathOf(requestTargetOf(request)));
  }

  notServed(method: string, path: string): ApiError {
    const allowed = this.routes.allowed(path);
    // A method the path serves, yet not served: a file the docs page does not have.
    if (allowed.length > 0 && !allowed.includes(method)) {
      return new ApiError('METHOD_NOT_ALLOWED', { headers: { Allow: allowed.join(', ') } });
    }
    const shown = path.replace(/[^\x20-\x7e]/g, '?');
    return new ApiError('NOT_FOUND', {
      message: `No route ${method} ${shown.length > 100 ? `${shown.slice(0, 100)}…` : shown}.`,
    });
  }
}

/** Requests below `path` that no other route serves are admitted as `access` declares. */
export interface UnservedArea {
  path: string;
  access: Omit<DeclaredAccess, 'action' | 'status'>;
  /** Also the path itself (false where a route serves it, or at the root). */
  exact?: boolean;
}

/** The last segment of a route that matches any rest of a path, in the platform's syntax. */
export function wildcardOf(platform: HttpPlatform): string {
  return platform === 'fastify' ? '*' : '*path';
}

/**
 * The root's route: any path, `/` included (Fastify's `*` matches an empty rest; Express's
 * optional `{*path}` does), so `/` outside CONTEXT_PATH is answered too.
 */
export function rootOf(platform: HttpPlatform): string {
  return platform === 'fastify' ? '*' : '{*path}';
}

/**
 * Routes for the requests no other route serves below an area's path, for any method: admitted
 * by the access guard as the area declares, then answered by `Unserved`. Their module is the last
 * of AppModule's imports, and every module with a controller is a direct import of AppModule, so
 * Express tries them after every other route (docs/decisions.md, "One router: Nest's"; Fastify
 * prefers the more specific route).
 * The root area's routes stay at the host root even under CONTEXT_PATH (see app.setup.ts).
 */
@Module({})
export class UnservedModule {
  static forRoot(platform: HttpPlatform, areas: UnservedArea[]): DynamicModule {
    return {
      module: UnservedModule,
      controllers: areas.map((a) =>
        unservedRoutes(a, a.path ? wildcardOf(platform) : rootOf(platform)),
      ),
    };
  }
}

function unservedRoutes({ path, access, exact = true }: UnservedArea, wildcard: string) {
  const declared = SetMetadata(ACCESS, { ...access, action: UNKNOWN_ROUTE, status: 404 });
  const base = path ? `/${path}` : '';
  // Each route's local template: declared to Nest, and named to Unserved by its handler.
  const belowPath = `${base}/${wildcard}`;
  const atPath = base || '/';
  @ApiExcludeController()
  @Controller()
  class UnservedBelow {
    constructor(readonly unserved: Unserved) {}

    @Mapped('ALL', belowPath)
    @declared
    async below(@Req() request: unknown): Promise<never> {
      throw await this.unserved.errorFor(rawOf<IncomingMessage>(request), belowPath);
    }
  }
  if (!exact) return UnservedBelow;
  @ApiExcludeController()
  @Controller()
  class UnservedAt extends UnservedBelow {
    @Mapped('ALL', atPath)
    @declared
    async at(@Req() request: unknown): Promise<never> {
      throw await this.unserved.errorFor(rawOf<IncomingMessage>(request), atPath);
    }
  }
  return UnservedAt;
}
