import { http, loggedLine, startTestApp, type TestApp } from './support/test-app.js';

/**
 * A route is declared once, by its `@Endpoint` (method and whole path): Nest routes it, the route
 * catalog knows its template, and the OpenAPI document lists it (docs/decisions.md, "A route is
 * declared once, whole, by its `@Endpoint`"). Every documented operation, requested at its path
 * with each parameter filled in, reaches its own route: its completion line names the template.
 * A route the router served under another path than the catalog's (a controller given a path of
 * its own, say) would be answered as unserved, with another template or none.
 */
describe.each([[''], ['/pegasus-ci']])('Routes as declared (CONTEXT_PATH %j)', (contextPath) => {
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    // The sandbox on: its pages and demo shop are routes too.
    const env = { CHECKOUT_SANDBOX: 'true', ...(contextPath ? { CONTEXT_PATH: contextPath } : {}) };
    t = await startTestApp(env, { captureLogs: true });
    origin = new URL(t.url).origin;
  });
  afterAll(() => t?.close());

  it('answers every documented operation from its own route', async () => {
    const doc = (await http(`${t.url}/docs-json`)).body;
    const base = doc.servers[0].url === '/' ? '' : doc.servers[0].url;
    const reached: { operation: string; route: unknown }[] = [];
    const expected: { operation: string; route: unknown }[] = [];
    let n = 0;
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      const prefix = (item.servers as { url: string }[] | undefined)?.[0]?.url === '/' ? '' : base;
      // A document's `/` below the context path is the context path itself, spelled without `/`.
      const template = withoutTrailingSlash(prefix + path.replace(/\{(\w+)\}/g, ':$1'));
      const url = withoutTrailingSlash(prefix + path.replace(/\{\w+\}/g, 'x1'));
      for (const method of Object.keys(item).filter((k) => k !== 'servers' && k !== 'parameters')) {
        const requestId = `route-${++n}`;
        await http(origin + url, {
          method: method.toUpperCase(),
          headers: { 'x-request-id': requestId },
        });
        const operation = `${method.toUpperCase()} ${template}`;
        const line = await loggedLine(t, (l) => l.requestId === requestId && 'latencyMs' in l);
        reached.push({ operation, route: line ? (line.route ?? null) : 'no completion line' });
        expected.push({ operation, route: template });
      }
    }
    expect(n).toBeGreaterThan(30);
    // The sandbox's home page among them: the one route whose path is the context path itself.
    expect(expected.map((e) => e.operation)).toContain(`GET ${contextPath || '/'}`);
    expect(reached).toEqual(expected);
  });
});

function withoutTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/$/, '') : path;
}
