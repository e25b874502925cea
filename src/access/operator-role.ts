/**
 * What an operator's role lets them do: `viewer` every operator GET but the audit trail's events,
 * and /metrics; `payments` that, and reporting payment sessions, redelivering callbacks, erasing
 * personal data and seeing it; `catalog` that, and the catalog's writes; `admin` everything
 * (changes to merchants, keys, callback secrets and operators; the audit trail's events).
 * ADMIN_TOKEN is `root`, with every role.
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
