import { isIP } from 'node:net';

const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * A host name per RFC 1123: dot-separated labels of letters, digits and inner hyphens, each at
 * most 63 characters, 253 in all. A name ending in an all-digit label is a malformed address
 * (`999.1.1.1`), never a name (RFC 1123: a top-level label is never all digits).
 */
export function isHostName(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  const labels = value.split('.');
  const last = labels[labels.length - 1];
  return labels.every((label) => HOSTNAME_LABEL.test(label)) && !/^\d+$/.test(last);
}

/**
 * Whether a parsed URL's host is a DNS name (RFC 1123, international names in their `xn--` form,
 * as the URL parser gives them) or an IP literal. The URL parser takes hosts such as `*`,
 * `shop.example;sandbox` or `a"b`, which would change the meaning of a header they are written
 * into (a Content-Security-Policy source list above all).
 */
export function hasPlainHost(url: URL): boolean {
  const host = url.hostname;
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(literal) !== 0 || isHostName(host);
}
