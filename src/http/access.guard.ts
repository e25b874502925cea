import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ACCESS, type DeclaredAccess } from './endpoint.decorator.js';
import { AccessPolicy } from './access-policy.js';
import { rawOf } from './raw.js';

/**
 * Who may call a route, read from the access its `@Endpoint` declares (public, merchant,
 * operator) and applied by the access policy: the key or the bearer token, and the general rate
 * limit. A route that declares nothing is refused: access is never assumed.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly declared = new WeakMap<object, DeclaredAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly policy: AccessPolicy,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<{ params?: Record<string, string> }>();
    const declared = this.declaredOf(context.getHandler());
    const admitted = this.policy.admit(
      rawOf<IncomingMessage>(request),
      rawOf<ServerResponse>(http.getResponse()),
      declared,
      declared.access === 'operator' ? targetOf(request.params) : null,
    );
    return admitted instanceof Promise ? admitted.then(() => true) : true;
  }

  private declaredOf(handler: object): DeclaredAccess {
    let declared = this.declared.get(handler);
    if (declared === undefined) {
      declared = this.reflector.get<DeclaredAccess | undefined>(ACCESS, handler as () => unknown);
      if (declared === undefined) {
        throw new Error('A route without @Endpoint: its access is not declared');
      }
      this.declared.set(handler, declared);
    }
    return declared;
  }
}

/** What an operator request acted on, as the audit trail names it: the last path parameter. */
function targetOf(params: Record<string, string> | undefined): string | null {
  const values = Object.values(params ?? {});
  return values.length > 0 ? String(values[values.length - 1]).slice(0, 300) : null;
}
