import {
  All,
  Delete,
  Get,
  Injectable,
  Patch,
  Post,
  Put,
  SetMetadata,
  applyDecorators,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';

/** Longest path parameter a route accepts (the Fastify router is given the same limit). */
export const MAX_PARAMETER_LENGTH = 16 * 1024;

/** A route as its handler declares it: its template (as logged and counted). */
export interface Route {
  /** `/api/gateway/payment-status/:validationKey`, CONTEXT_PATH included. */
  readonly template: string;
  /** The template below CONTEXT_PATH (or at the host root), as the handler declares it. */
  readonly local: string;
  /** A route for requests no other route serves (`Mapped('ALL', …)`, or a `*path` wildcard). */
  catchAll: boolean;
  /** Served at the host root even under CONTEXT_PATH. */
  readonly atRoot: boolean;
  readonly segments: readonly string[];
}

/** Nest's route decorator for each method a route may declare. */
const MAPPINGS = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete, ALL: All };

/** A method a route declares: one of HTTP's, or `ALL` for a route serving any method. */
export type RouteMethod = keyof typeof MAPPINGS;

/** A route as its handler declares it (see Mapped). */
interface DeclaredRoute {
  method: RouteMethod;
  /** Whole (below CONTEXT_PATH, or at the host root): the controller has no path of its own. */
  paths: string[];
}

const ROUTE = Symbol('route');

/**
 * A handler's route: Nest's own decorator for the method (`@Get(path)`, …), and the same method
 * and path recorded for the route catalog. The one declaration of a route, so the catalog cannot
 * drift from what Nest routes. The path is whole (below CONTEXT_PATH, or at the host root):
 * controllers take no path (`@Controller()`), as the catalog could not read one.
 */
export function Mapped(method: RouteMethod, path: string | string[]): MethodDecorator {
  const paths = Array.isArray(path) ? path : [path];
  return applyDecorators(
    MAPPINGS[method](paths),
    SetMetadata(ROUTE, { method, paths } satisfies DeclaredRoute),
  );
}

/** Where the routes are mounted. */
export interface RouteMounts {
  contextPath: string;
  /** Local templates served at the host root (`/widgets/sgpg.js`). */
  atRoot: readonly string[];
  /** Routes the platform serves outside Nest's controllers (the docs page), with their methods. */
  others: readonly string[];
  /** Other words a URL may be spelled with: the query parameters' names. */
  words: Iterable<string>;
}

/**
 * The routes the controllers declare (`Mapped`, through `@Endpoint` for every route but the
 * unserved ones): the template of the route that serves a request, whether a request target
 * spells it as declared (the routers are lenient: case, escapes, dot segments), and the methods a
 * path serves (the `Allow` of a 405). Routing itself is the router's.
 */
@Injectable()
export class RouteCatalog {
  private readonly handlers = new Map<unknown, Route[]>();
  private readonly methods = new Map<Route, Set<string>>();
  private readonly words = new Set<string>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  readRoutes(mounts: RouteMounts): void {
    const byTemplate = new Map<string, Route>();
    const add = (local: string, method: string, handler?: unknown) => {
      const atRoot = mounts.atRoot.includes(local);
      const template = (atRoot ? '' : mounts.contextPath) + local || '/';
      let route = byTemplate.get(template);
      if (!route) {
        const segments = template.split('/');
        route = { template, local, atRoot, segments, catchAll: /^\*/.test(segments.at(-1)!) };
        byTemplate.set(template, route);
        this.methods.set(route, new Set());
        for (const s of segments) if (s && !/^[:*]/.test(s)) this.words.add(s);
      }
      if (method === 'ALL') route.catchAll = true;
      const methods = this.methods.get(route)!;
      methods.add(method);
      if (method === 'GET') methods.add('HEAD');
      if (handler) this.handlers.set(handler, [...(this.handlers.get(handler) ?? []), route]);
    };
    for (const { metatype, instance } of this.discovery.getControllers()) {
      if (!metatype || !instance) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as () => unknown;
        const declared = this.reflector.get<DeclaredRoute | undefined>(ROUTE, handler);
        if (!declared) continue;
        for (const path of declared.paths) add(joined(path), declared.method, handler);
      }
    }
    for (const local of mounts.others) add(local, 'GET');
    for (const word of [...mounts.contextPath.split('/'), ...mounts.words]) this.words.add(word);
  }

  /** The routes a handler serves (one per path, aliases included). */
  routesOf(handler: unknown): readonly Route[] {
    return this.handlers.get(handler) ?? [];
  }

  /** The methods served at the path as spelled, sorted; empty when no route has this path. */
  allowed(path: string): string[] {
    const spelled = path.split('/');
    const allowed = new Set<string>();
    for (const [route, methods] of this.methods) {
      if (route.catchAll || !spells(route, spelled)) continue;
      for (const method of methods) allowed.add(method);
    }
    return [...allowed].sort();
  }

  /** Whether a word is one a route is spelled with (a path word, CONTEXT_PATH, a query name). */
  isRouteWord = (word: string): boolean => this.words.has(word);
}

/**
 * Whether the segments of a path spell the route: its words exactly (case included), each
 * parameter one non-empty segment that decodes to something other than a dot segment.
 */
export function spells(route: Route, spelled: readonly string[]): boolean {
  const { segments } = route;
  if (spelled.length !== segments.length) return false;
  for (let i = 0; i < segments.length; i++) {
    const word = segments[i];
    const segment = spelled[i];
    if (word.charCodeAt(0) !== 58 /* : */) {
      if (word !== segment) return false;
    } else if (!isParameter(segment)) return false;
  }
  return true;
}

function isParameter(segment: string): boolean {
  if (segment === '' || segment === '.' || segment === '..') return false;
  if (segment.length > MAX_PARAMETER_LENGTH) return false;
  if (!segment.includes('%')) return true;
  try {
    const decoded = decodeURIComponent(segment);
    return decoded !== '.' && decoded !== '..';
  } catch {
    return false;
  }
}

/** A declared path as Nest routes it: one leading slash, none trailing. */
function joined(path: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed ? `/${trimmed}` : '';
}
