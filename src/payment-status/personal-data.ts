import { PERSONAL_FIELDS } from './payment-response.fields.js';

export type PersonalField = (typeof PERSONAL_FIELDS)[number];

/**
 * A stored payment response (JSON text) without its personal fields, and which fields went;
 * money, references and everything else stay.
 */
export function withoutPersonalData(stored: string | null): {
  stored: string | null;
  erased: PersonalField[];
} {
  if (stored === null) return { stored, erased: [] };
  const response = JSON.parse(stored) as Record<string, unknown>;
  const erased = PERSONAL_FIELDS.filter((field) => field in response);
  for (const field of erased) delete response[field];
  return { stored: erased.length > 0 ? JSON.stringify(response) : stored, erased };
}

/**
 * A callback body (the status element made flat) without its personal fields; undefined when it
 * held none. Its other fields keep their order.
 */
export function callbackBodyWithoutPersonalData(body: string): string | undefined {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const erased = PERSONAL_FIELDS.filter((field) => field in parsed);
  if (erased.length === 0) return undefined;
  for (const field of erased) delete parsed[field];
  return JSON.stringify(parsed);
}

/** How each personal field's key is written in a stored payment response (the service's JSON). */
const PERSONAL_KEYS = PERSONAL_FIELDS.map((field) => `${JSON.stringify(field)}:`);

/**
 * Whether a stored payment response holds personal data. It is the service's own JSON of a flat
 * object, so a field is there exactly when its key is: a value that spells a key has its quotes
 * escaped and never matches.
 */
export function holdsPersonalData(stored: string | null): boolean {
  return stored !== null && PERSONAL_KEYS.some((key) => stored.includes(key));
}

/** A stored report as it reads once its personal data is erased. */
export function withoutPersonalFields<T extends { paymentResponse: string | null }>(report: T): T {
  return { ...report, paymentResponse: withoutPersonalData(report.paymentResponse).stored };
}
