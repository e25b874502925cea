/** What stands in the audit trail for a key, token, secret, hash or personal data. */
export const REDACTED = '[redacted]';

/** The fields a change touched, each with its value before and after (null: none). */
export type Changes = Record<string, { old: unknown; new: unknown }>;

/**
 * The fields whose values differ between `before` and `after` (either may be null: created,
 * deleted). Fields named in `redacted` are shown as REDACTED on the side that has a value, so the
 * trail says that a secret changed, never what it is.
 */
export function changesBetween(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  redacted: readonly string[] = [],
): Changes {
  const changes: Changes = {};
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of fields) {
    const old = before?.[field] ?? null;
    const now = after?.[field] ?? null;
    if (JSON.stringify(old) === JSON.stringify(now)) continue;
    const hide = redacted.includes(field);
    changes[field] = {
      old: hide && old !== null ? REDACTED : old,
      new: hide && now !== null ? REDACTED : now,
    };
  }
  return changes;
}
