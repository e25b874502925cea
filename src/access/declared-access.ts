import type { OperatorRole } from './operator-role.js';

/** Who may call a route: a merchant with an API key, an operator with a bearer token, or anyone. */
export type Access = 'merchant' | 'operator' | 'public';

/** The metadata key under which `@Endpoint` declares a route's DeclaredAccess. */
export const ACCESS = 'access';

/** What the access guard reads of a route's declaration. */
export interface DeclaredAccess {
  access: Access;
  /** The role an operator route needs. */
  role?: OperatorRole;
  /** The operationId: what the audit trail calls the request. */
  action: string;
  /** The status the route answers with when all goes well. */
  status: number;
  /**
   * The route reads or writes the database: every merchant and operator route, and a public one
   * that declares SERVICE_UNAVAILABLE among its errors.
   */
  usesDatabase?: boolean;
}
