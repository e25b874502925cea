import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Security headers of helmet. The only HTML the service serves is Swagger UI, whose page needs
 * inline styles and data: images; everything else is JSON.
 */
const HELMET_OPTIONS = {
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
 * middleware rebuilds them for every request.
 */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const collect = {
    setHeader: (name: string, value: string | number) => (headers[name] = String(value)),
    removeHeader: (name: string) => delete headers[name],
  };
  helmet(HELMET_OPTIONS)(
    {} as IncomingMessage,
    collect as unknown as ServerResponse,
    () => undefined,
  );
  return headers;
}
