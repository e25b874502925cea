import { ExecutionContext, createParamDecorator } from '@nestjs/common';

/** Who is calling, as admission identified them before routing. */
export interface Caller {
  /** The merchant of the API key; undefined in AUTH_MODE=none, where every merchant is visible. */
  merchantId?: string;
  /** Who the rate limits count against: `key:<id>` for a valid key, else `ip:<address>`. */
  tracker: string;
}

const CALLER = Symbol('caller');

type WithCaller = { [CALLER]?: Caller };

/** Attaches the caller to the platform's raw request (Node's IncomingMessage). */
export function attachCaller(rawRequest: object, caller: Caller): void {
  (rawRequest as WithCaller)[CALLER] = caller;
}

/** The caller of a raw request, when admission identified one. */
export function callerOf(rawRequest: object): Caller | undefined {
  return (rawRequest as WithCaller)[CALLER];
}

/** The caller of the current request (merchant routes only: admission has run). */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller => {
    const request = context.switchToHttp().getRequest<{ raw?: object }>();
    const caller = callerOf(request.raw ?? request);
    if (!caller) throw new Error('No caller: the route is not behind admission');
    return caller;
  },
);
