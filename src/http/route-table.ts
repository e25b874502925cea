import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ADMIN_SCHEME, API_KEY_SCHEME } from '../common/http/endpoint.decorator.js';
import { classifyPath, type PathPolicy } from './paths.js';

interface Route {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * The application's routes as the OpenAPI document lists them, so an unmatched request can be
 * told apart: wrong method on a real path (405) or no such path (404).
 */
@Injectable()
export class RouteTable {
  private routes: Route[] = [];

  /** Reads the routes from the document, whose paths may or may not include CONTEXT_PATH. */
  load(document: OpenAPIObject, contextPath: string): void {
    const local = (path: string) =>
      contextPath && path.startsWith(`${contextPath}/`) ? path.slice(contextPath.length) : path;
    assertAccessMatchesPaths(document, local);
    this.routes = Object.entries(document.paths).map(([path, item]) => ({
      pattern: new RegExp(
        '^' +
          (contextPath + local(path))
            .split(/\{[^}]+\}/)
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]+') +
          '/?$',
      ),
      methods: new Set(
        Object.keys(item)
          .filter((key) =>
            ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(key),
          )
          .map((key) => key.toUpperCase()),
      ),
    }));
  }

  /** Methods served at this URL's path; empty when no route has this path. */
  methodsFor(url: string): string[] {
    const path = url.split('?')[0];
    const methods = new Set<string>();
    for (const route of this.routes) {
      if (route.pattern.test(path)) route.methods.forEach((method) => methods.add(method));
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

/**
 * Admission decides who may call from the path alone (before routing); each route declares its
 * access with @Endpoint. They must agree, or a route could be declared for merchants and served to
 * anyone: start-up stops on the first disagreement.
 */
function assertAccessMatchesPaths(document: OpenAPIObject, local: (path: string) => string): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const security = (operation as { security?: Record<string, unknown>[] }).security ?? [];
      const schemes = security.flatMap((requirement) => Object.keys(requirement));
      const declared: PathPolicy = schemes.includes(API_KEY_SCHEME)
        ? 'merchant'
        : schemes.includes(ADMIN_SCHEME)
          ? 'operator'
          : 'public';
      const { policy } = classifyPath(local(path), '');
      if (declared !== policy) {
        throw new Error(
          `${method.toUpperCase()} ${path} is declared for ${declared} callers, but its path is admitted as ${policy}`,
        );
      }
    }
  }
}
