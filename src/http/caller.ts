import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { OperatorRole } from './endpoint.decorator.js';

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

/** An operator as the guard identified them: a person's or program's credential, or `root`. */
export interface OperatorIdentity {
  /** `root` for ADMIN_TOKEN, `operator` for an operator's own token. */
  kind: 'root' | 'operator';
  /** The operator's id; `root` for ADMIN_TOKEN. */
  id: string;
  name: string;
  /** The operator's role (`admin` for root): what a route may show them beyond its own role. */
  role?: OperatorRole;
}

/** An admitted operator request: who, which operation, which request, and its usual status. */
export interface OperatorCall {
  operator: OperatorIdentity;
  /** The route's operationId. */
  action: string;
  requestId: string;
  /** The status the route answers with when all goes well. */
  status: number;
}

const OPERATOR_CALL = Symbol('operatorCall');

/** Attaches the operator request to Node's request (the access guard does). */
export function attachOperatorCall(rawRequest: object, call: OperatorCall): void {
  (rawRequest as { [OPERATOR_CALL]?: OperatorCall })[OPERATOR_CALL] = call;
}

/** The operator request being served (operator routes only: their guard admitted one). */
export const CurrentOperatorCall = createParamDecorator(
  (_data: unknown, context: ExecutionContext): OperatorCall => {
    const request = context.switchToHttp().getRequest<{ raw?: object }>();
    const call = ((request.raw ?? request) as { [OPERATOR_CALL]?: OperatorCall })[OPERATOR_CALL];
    if (!call) throw new Error('No operator call: the route does not declare operator access');
    return call;
  },
);
