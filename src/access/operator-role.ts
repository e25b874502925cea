/**
 * What an operator's role lets them do: `viewer` every operator GET and /metrics; `payments` that,
 * and reporting payment sessions, redelivering callbacks and erasing personal data; `catalog` that,
 * and the catalog's writes; `admin` everything (merchants, keys, callback secrets, operators, the
 * audit trail). ADMIN_TOKEN is `root`, with every role.
 */
export const OPERATOR_ROLES = ['viewer', 'payments', 'catalog', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** The roles that include each role. */
export const ROLES_INCLUDING: Record<OperatorRole, readonly OperatorRole[]> = {
  viewer: ['viewer', 'payments', 'catalog', 'admin'],
  payments: ['payments', 'admin'],
  catalog: ['catalog', 'admin'],
  admin: ['admin'],
};
