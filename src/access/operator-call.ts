import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { OperatorRole } from './operator-role.js';

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
