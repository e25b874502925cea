import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ADMIN_SCHEME, API_KEY_SCHEME, type Access } from './endpoint.decorator.js';
import { normalisedSegments, pathOf, startsWithIgnoringCase } from './paths.js';

/** A route as the table knows it: its template (as logged and counted) and its methods. */
export interface Route {
  /** `/api/gateway/payment-status/:validationKey`, CONTEXT_PATH included. */
  readonly template: string;
  readonly methods: ReadonlySet<string>;
  readonly access: Access;
}

interface Pattern {
  route: Route;
  /** One entry per segment: the word it must be, or a parameter's rule. */
  segments: (string | ParameterRule)[];
}

/** What a parameter's segment may be: anything but empty, a dot segment or undecodable. */
interface ParameterRule {
  shape?: RegExp;
}

/** Longest path parameter a route accepts (the Fastify router is given the same limit). */
export const MAX_PARAMETER_LENGTH = 16 * 1024;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** A file of the docs page: one plain name, as the docs' static files are named. */
const DOCS_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

/** Where the docs page and the OpenAPI document are served, below CONTEXT_PATH. */
export interface DocsPaths {
  page: string;
  document: string;
}

/**
 * The application's routes as declared (the OpenAPI document, plus the docs page), read the way
 * the routers read a path: words as spelled, case included; a parameter is one non-empty segment
 * that decodes. Both platforms' routers are lenient in places (Fastify decodes every escape before
 * matching, Express ignores a trailing slash): a request this table does not match is not served
 * on either, so both answer every spelling alike.
 */
@Injectable()
export class RouteTable {
  private readonly exact = new Map<string, Route>();
  private readonly patterns = new Map<number, Pattern[]>();
  private readonly words = new Set<string>();
  /** The access of each first segment below CONTEXT_PATH (lower case): the strictest declared. */
  private readonly areas = new Map<string, Access>();
  private prefix: string[] = [];

  /** Reads the routes from the document, whose paths do not include CONTEXT_PATH. */
  load(document: OpenAPIObject, contextPath: string, docs: DocsPaths): void {
    this.prefix = contextPath.split('/').filter(Boolean);
    this.prefix.forEach((word) => this.words.add(word));
    for (const [path, item] of Object.entries(document.paths)) {
      const methods = new Set<string>();
      let access: Access = 'public';
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!operation) continue;
        methods.add(method.toUpperCase());
        access = strictest(access, accessOf(operation.security));
        for (const parameter of operation.parameters ?? []) {
          if ('in' in parameter && parameter.in === 'query') this.words.add(parameter.name);
        }
      }
      if (methods.has('GET')) methods.add('HEAD');
      // A path item with a server of its own at `/` is served at the host root (see swagger.ts).
      const atRoot = item.servers?.some((server) => server.url === '/') ?? false;
      // The root below CONTEXT_PATH is the prefix itself (`/pegasus-ci`), as the routers serve it.
      const below = contextPath && path === '/' ? '' : path;
      this.add(atRoot ? path : contextPath + below, methods, access);
    }
    const get = new Set(['GET', 'HEAD']);
    for (const path of [docs.page, `${docs.page}/`, docs.document])
      this.add(contextPath + path, get, 'public');
    this.add(`${contextPath}${docs.page}/{file}`, get, 'public', { file: DOCS_FILE });
  }

  /** The route serving this method at this request target as spelled; undefined when none does. */
  match(method: string, url: string): Route | undefined {
    const route = this.routeAt(pathOf(url));
    return route?.methods.has(method) ? route : undefined;
  }

  /** Methods served at this request target's path; empty when no route has this path. */
  methodsFor(url: string): string[] {
    return [...(this.routeAt(pathOf(url))?.methods ?? [])].sort();
  }

  /** Whether the request target is below CONTEXT_PATH, spelled exactly (always, without one). */
  isBelowPrefix(url: string): boolean {
    if (this.prefix.length === 0) return true;
    const prefix = `/${this.prefix.join('/')}`;
    const next = url.charAt(prefix.length);
    return url.startsWith(prefix) && (next === '' || next === '/' || next === '?');
  }

  /** Whether a word is one a route is spelled with (a path word, CONTEXT_PATH, a query name). */
  isRouteWord(word: string): boolean {
    return this.words.has(word);
  }

  /**
   * A request no route serves: the segments it means below CONTEXT_PATH, and the access the
   * routes of that area declare. Read both as spelled and as meant (`/health/../api/x` is below
   * `/api`), the stricter reading wins: no spelling gets a request past the credentials its area
   * asks for.
   */
  areaOf(url: string): { segments: string[]; access: Access } {
    const path = pathOf(url);
    const meant = this.below(normalisedSegments(path));
    const spelled = this.below(path.split('/').filter(Boolean));
    const segments = meant ?? spelled ?? [];
    const access = strictest(this.accessOf(meant), this.accessOf(spelled));
    return { segments, access };
  }

  private below(segments: string[]): string[] | undefined {
    return startsWithIgnoringCase(segments, this.prefix)
      ? segments.slice(this.prefix.length)
      : undefined;
  }

  private accessOf(local: string[] | undefined): Access {
    const first = local?.[0]?.toLowerCase();
    return (first !== undefined && this.areas.get(first)) || 'public';
  }

  private add(
    template: string,
    methods: Set<string>,
    access: Access,
    shapes: Record<string, RegExp> = {},
  ): void {
    const spelled = template.split('/');
    const route: Route = {
      template: spelled.map((s) => (isParameter(s) ? `:${s.slice(1, -1)}` : s)).join('/'),
      methods,
      access,
    };
    const local = spelled.slice(1 + this.prefix.length);
    if (local[0] !== undefined && !isParameter(local[0])) {
      const area = local[0].toLowerCase();
      this.areas.set(area, strictest(this.areas.get(area) ?? 'public', access));
    }
    if (!spelled.some(isParameter)) {
      const existing = this.exact.get(template);
      this.exact.set(template, existing ? merged(existing, route) : route);
      spelled.forEach((word) => word && this.words.add(word));
      return;
    }
    const segments = spelled.map((segment) => {
      if (!isParameter(segment)) {
        if (segment) this.words.add(segment);
        return segment;
      }
      return { shape: shapes[segment.slice(1, -1)] };
    });
    const list = this.patterns.get(segments.length) ?? [];
    const same = list.find((p) => p.route.template === route.template);
    if (same) same.route = merged(same.route, route);
    else list.push({ route, segments });
    this.patterns.set(segments.length, list);
  }

  private routeAt(path: string): Route | undefined {
    const exact = this.exact.get(path);
    if (exact) return exact;
    const segments = path.split('/');
    for (const pattern of this.patterns.get(segments.length) ?? []) {
      if (pattern.segments.every((rule, i) => matches(rule, segments[i]))) return pattern.route;
    }
    return undefined;
  }
}

function isParameter(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}');
}

function matches(rule: string | ParameterRule, segment: string): boolean {
  if (typeof rule === 'string') return rule === segment;
  if (segment === '' || segment === '.' || segment === '..') return false;
  if (segment.length > MAX_PARAMETER_LENGTH) return false;
  if (rule.shape && !rule.shape.test(segment)) return false;
  if (!segment.includes('%')) return true;
  try {
    const decoded = decodeURIComponent(segment);
    return decoded !== '.' && decoded !== '..';
  } catch {
    return false;
  }
}

function merged(a: Route, b: Route): Route {
  return {
    template: a.template,
    methods: new Set([...a.methods, ...b.methods]),
    access: strictest(a.access, b.access),
  };
}

function accessOf(security: Record<string, string[]>[] | undefined): Access {
  const schemes = (security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes(API_KEY_SCHEME)) return 'merchant';
  return schemes.includes(ADMIN_SCHEME) ? 'operator' : 'public';
}

/** Merchant before operator before public: what asks for credentials wins. */
function strictest(a: Access, b: Access): Access {
  if (a === 'merchant' || b === 'merchant') return 'merchant';
  return a === 'operator' || b === 'operator' ? 'operator' : 'public';
}
