/** `YYYY-MM-DD`: a calendar date. */
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * `YYYY-MM-DDTHH:MM[:SS[.sss]]` with its time zone (`Z` or `±HH:MM`): without one, the same text
 * names another instant in another place.
 */
const ZONED_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Whether the parts name a real day (no 2026-02-30) at a real time of day and zone. */
function real(parts: RegExpExecArray | null): boolean {
  if (!parts) return false;
  const [, y, mo, d, h = '0', mi = '0', s = '0', zh = '0', zm = '0'] = parts;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return (
    day.getUTCFullYear() === Number(y) &&
    day.getUTCMonth() === Number(mo) - 1 &&
    day.getUTCDate() === Number(d) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s) < 60 &&
    Number(zh) < 24 &&
    Number(zm) < 60
  );
}

/** A date-time with its time zone, e.g. `2026-11-25T09:30:00Z` or `2026-11-25T10:30+01:00`. */
export function isZonedDateTime(value: unknown): value is string {
  return typeof value === 'string' && real(ZONED_DATE_TIME.exec(value));
}

/** A calendar date alone, e.g. `2026-11-25`. */
export function isDateOnly(value: unknown): value is string {
  return typeof value === 'string' && real(DATE_ONLY.exec(value));
}

export const ZONED_DATE_TIME_RULE =
  'must be a date-time with its time zone, e.g. 2026-01-31T12:00:00Z';
