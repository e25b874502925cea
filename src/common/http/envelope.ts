/** The page of a paginated list, as every list answer carries it. */
export interface PageInfo {
  /** Requested page size. */
  size: number;
  /** Zero-based page number. */
  page: number;
  /** Number of matching records (not pages). */
  total: number;
}

/**
 * A list as a route returns it: its items, its page when paginated, and fields of its own (the
 * merchant whose keys these are, say). The envelope interceptor answers it as
 * `{...fields, "payload": items, "page": page}`.
 */
export type Listing<T, Fields extends object = object> = Fields & {
  items: readonly T[];
  page?: PageInfo;
};

/** A page of a list for the envelope: the items, and the page they are of. */
export function listingPage<T>(
  items: readonly T[],
  request: { page: number; size: number },
  total: number,
): Listing<T> {
  return { items, page: { size: request.size, page: request.page, total } };
}

/**
 * The version of what a value was read from (the catalog's revision), kept on the value without
 * being part of its JSON: an answer's ETag covers it besides the bytes, so every change of the
 * source changes the tag, even where a page's bytes stay the same.
 */
export const SOURCE_VERSION = Symbol('sourceVersion');

/** Marks a value with the version of its source (see SOURCE_VERSION). */
export function withSourceVersion<T extends object>(value: T, version: string | number): T {
  Object.defineProperty(value, SOURCE_VERSION, { value: String(version), enumerable: false });
  return value;
}

/** The version of a value's source; empty when it has none. */
export function sourceVersionOf(value: unknown): string {
  return typeof value === 'object' && value !== null
    ? ((value as { [SOURCE_VERSION]?: string })[SOURCE_VERSION] ?? '')
    : '';
}
