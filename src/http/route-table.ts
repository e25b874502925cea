import type { OpenAPIObject } from '@nestjs/swagger';
import { PAYMENT_STATUS_PATH } from '../payment-status/payment-status.routes.js';

interface Route {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * The application's routes as the OpenAPI document lists them, so an unmatched request can be
 * told apart: wrong method on a real path (405) or no such path (404).
 */
export class RouteTable {
  private routes: Route[] = [];

  constructor(private readonly contextPath = '') {}

  load(document: OpenAPIObject): void {
    this.routes = Object.entries(document.paths).map(([path, item]) => ({
      pattern: new RegExp(
        '^' +
          path
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

  /** Anything under the payment-status route answers like an unknown key. */
  isPaymentStatusPath(url: string): boolean {
    return isPaymentStatusPath(url, this.contextPath);
  }
}

/** Anything under the payment-status route answers like an unknown key. */
export function isPaymentStatusPath(url: string, contextPath: string): boolean {
  return url.split('?')[0].startsWith(`${contextPath}/${PAYMENT_STATUS_PATH}/`);
}
