import { ExecutionContext, createParamDecorator } from '@nestjs/common';

/** Who is calling a merchant route, as the access guard identified them. */
export interface Caller {
  /** The merchant of the API key; undefined in AUTH_MODE=none, where every merchant is visible. */
  merchantId?: string;
  /** Who the rate limits count against: `key:<id>` for a valid key, else `ip:<address>`. */
  tracker: string;
}

const CALLER = Symbol('caller');

type WithCaller = { [CALLER]?: Caller };

/** Attaches the caller to Node's request, which both platforms' requests wrap. */
export function attachCaller(rawRequest: object, caller: Caller): void {
  (rawRequest as WithCaller)[CALLER] = caller;
}

/** The caller of a request, when the access guard identified one. */
export function callerOf(rawRequest: object): Caller | undefined {
  return (rawRequest as WithCaller)[CALLER];
}

/** The caller of the current request; merchant routes only (their guard identified one). */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller => {
    const request = context.switchToHttp().getRequest<{ raw?: object }>();
    const caller = callerOf(request.raw ?? request);
    if (!caller) throw new Error('No caller: the route does not declare merchant access');
    return caller;
  },
);
