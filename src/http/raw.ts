/**
 * Node's request or response behind a platform's own: Fastify wraps them (`raw`), Express
 * extends them. Code that must run alike on both works on these.
 */
export function rawOf<T>(value: unknown): T {
  return ((value as { raw?: T }).raw ?? value) as T;
}

const TARGET = Symbol('requestTarget');

/** Records the request target as the client sent it, before a platform rewrites it. */
export function keepRequestTarget(request: object, url: string): void {
  (request as { [TARGET]?: string })[TARGET] = url;
}

/**
 * The request target as the client sent it: a platform may rewrite `url` before routing, and
 * strips a middleware's mount path from it while the middleware runs (`originalUrl` keeps it).
 */
export function requestTargetOf(request: unknown): string {
  const tagged = request as { [TARGET]?: string; originalUrl?: string; url?: string };
  return tagged[TARGET] ?? tagged.originalUrl ?? tagged.url ?? '/';
}
