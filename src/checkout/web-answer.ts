/**
 * An answer that is not JSON (a page, a script, a stylesheet): its bytes, its headers, the
 * headers of every answer it must not carry, and a strong ETag when it can be cached.
 */
export interface WebAnswer {
  readonly kind: 'web';
  body: string;
  headers: Record<string, string>;
  /** Headers set for every answer (see RequestContext) that this one must not carry. */
  withoutHeaders?: readonly string[];
  etag?: string;
}

export function isWebAnswer(value: unknown): value is WebAnswer {
  return typeof value === 'object' && value !== null && (value as WebAnswer).kind === 'web';
}
