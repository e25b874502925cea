import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ACCESS, type Access } from './endpoint.decorator.js';
import { AccessPolicy } from './access-policy.js';
import { rawOf } from './raw.js';

/**
 * Who may call a route, read from the access its `@Endpoint` declares (public, merchant,
 * operator) and applied by the access policy: the key or the bearer token, and the general rate
 * limit. A route that declares nothing is refused: access is never assumed.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly declared = new WeakMap<object, Access>();

  constructor(
    private readonly reflector: Reflector,
    private readonly policy: AccessPolicy,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const admitted = this.policy.admit(
      rawOf<IncomingMessage>(http.getRequest()),
      rawOf<ServerResponse>(http.getResponse()),
      this.accessOf(context.getHandler()),
    );
    return admitted instanceof Promise ? admitted.then(() => true) : true;
  }

  private accessOf(handler: object): Access {
    let access = this.declared.get(handler);
    if (access === undefined) {
      access = this.reflector.get<Access | undefined>(ACCESS, handler as () => unknown);
      if (access === undefined) {
        throw new Error('A route without @Endpoint: its access is not declared');
      }
      this.declared.set(handler, access);
    }
    return access;
  }
}
