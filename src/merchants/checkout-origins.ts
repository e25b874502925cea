import { hasPlainHost } from '../common/host-names.js';

/** Origins a merchant may list for its checkout page, at most this many. */
export const MAX_CHECKOUT_ORIGINS = 20;

export const CHECKOUT_ORIGIN_RULE = `must be a list of at most ${MAX_CHECKOUT_ORIGINS} origins such as https://shop.example (scheme, host and port only)`;

/**
 * An origin as browsers serialise it: `http(s)://host[:port]`, nothing after it, its host a DNS
 * name or an IP literal (it goes into the checkout page's `frame-ancestors`).
 */
export function isOrigin(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 300) return false;
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.origin === value &&
      hasPlainHost(url)
    );
  } catch {
    return false;
  }
}

/**
 * The origin of an absolute URL; undefined when it has none a browser would name, or when its
 * host is neither a DNS name nor an IP literal (a URL stored before that rule held).
 */
export function originOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' || !hasPlainHost(parsed) ? undefined : parsed.origin;
  } catch {
    return undefined;
  }
}
