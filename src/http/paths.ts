/** The path of a request target, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * The path a router is given for a request target: the path it means, read as leniently as any
 * client or intermediary might (escapes decoded, `\` taken for `/`, `;parameters` dropped, `.`
 * and `..` resolved, empty segments skipped), each segment escaped again; the query as sent. The
 * routers then read every spelling alike, and the access guard finds whether the target spells
 * the route it reached (see access.guard.ts). Undefined when the target is already plain.
 */
export function routableUrl(url: string): string | undefined {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!ODD_PATH.test(path)) return undefined;
  const out: string[] = [];
  for (const raw of path.split(/[/\\]/)) {
    const parameters = raw.indexOf(';');
    const segment = decodeSegment(parameters < 0 ? raw : raw.slice(0, parameters));
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(encodeURIComponent(segment));
  }
  return `/${out.join('/')}${query < 0 ? '' : url.slice(query)}`;
}

/** An escape, a `\`, a `;`, an empty segment, a dot segment or a trailing slash. */
const ODD_PATH = /[%\\;]|\/\/|\/\.\.?(?:\/|$)|.\/$/;

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
