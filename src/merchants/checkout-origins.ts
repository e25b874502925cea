/** Origins a merchant may list for its checkout page, at most this many. */
export const MAX_CHECKOUT_ORIGINS = 20;

export const CHECKOUT_ORIGIN_RULE = `must be a list of at most ${MAX_CHECKOUT_ORIGINS} origins such as https://shop.example (scheme, host and port only)`;

/** An origin as browsers serialise it: `http(s)://host[:port]`, nothing after it. */
export function isOrigin(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 300) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The origin of an absolute URL; undefined when it has none a browser would name. */
export function originOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
