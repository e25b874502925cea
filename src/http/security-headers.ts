import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Security headers of helmet. The only HTML the service serves is Swagger UI, whose page needs
 * inline styles and data: images; everything else is JSON.
 */
export const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", "'unsafe-inline'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      // The sandbox is served over plain HTTP; upgrading would break the docs page's assets.
      upgradeInsecureRequests: null,
    },
  },
  crossOriginEmbedderPolicy: false,
};

/**
 * The headers helmet sets, computed once: they do not depend on the request, and helmet's
 * middleware rebuilds them for every request. helmet runs once, given no request and a response
 * that collects what it sets through Node's `setHeader` and `removeHeader`; anything else it asks
 * of either fails here, at start, naming it (docs/decisions.md, "Documented APIs only").
 * security-headers.spec.ts checks the result against helmet on a real server.
 */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const methods: Record<string, unknown> = {
    setHeader: (name: string, value: string | number) => (headers[name] = String(value)),
    removeHeader: (name: string) => delete headers[name],
  };
  const collector = (what: string, allowed: Record<string, unknown>) =>
    new Proxy(allowed, {
      get(target, name) {
        if (typeof name === 'string' && Object.hasOwn(target, name)) return target[name];
        throw new Error(
          `helmet read ${what}.${String(name)}: securityHeaders() (src/http/security-headers.ts) ` +
            'gives it no request and collects its headers through setHeader and removeHeader only',
        );
      },
    });
  helmet(HELMET_OPTIONS)(
    collector('request', {}) as unknown as IncomingMessage,
    collector('response', methods) as unknown as ServerResponse,
    (error?: unknown) => {
      if (error) throw error;
    },
  );
  return headers;
}
