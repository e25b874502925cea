import { ExecutionContext, createParamDecorator } from '@nestjs/common';

/** What the auth step attaches to a request. */
export interface RequestPrincipal {
  /** The merchant of the API key; undefined in AUTH_MODE=none, where every merchant is visible. */
  merchantId?: string;
  keyId?: string;
}

export const PRINCIPAL = Symbol('principal');

export type RequestWithPrincipal = { [PRINCIPAL]?: RequestPrincipal; ip?: string };

/** Who a rate limit counts against: the API key when valid, else the caller's address. */
export function rateLimitTracker(request: RequestWithPrincipal): string {
  const keyId = request[PRINCIPAL]?.keyId;
  return keyId ? `key:${keyId}` : `ip:${request.ip ?? 'unknown'}`;
}

export interface Caller {
  merchantId?: string;
  tracker: string;
}

/** The caller as the guards identified it. */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller => {
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    return { merchantId: request[PRINCIPAL]?.merchantId, tracker: rateLimitTracker(request) };
  },
);
