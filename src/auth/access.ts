import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ACCESS, type Access } from '../common/http/endpoint.decorator.js';

/** The access a route declares with @Endpoint; merchant routes when it declares none. */
export function accessOf(reflector: Reflector, context: ExecutionContext): Access {
  return (
    reflector.getAllAndOverride<Access | undefined>(ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]) ?? 'merchant'
  );
}
