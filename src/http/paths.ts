/** The path of a request target, without its query (of an absolute-form target, its path). */
export function pathOf(url: string): string {
  const target = originForm(url);
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

/** A target in absolute form (`http://host/path`, RFC 9112) as `/path`. */
function originForm(url: string): string {
  if (url.charCodeAt(0) === 47 /* / */) return url;
  const origin = ABSOLUTE_FORM.exec(url);
  if (!origin) return url;
  const rest = url.slice(origin[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * The path a router is given for a request target: the path it means, read as leniently as any
 * client or intermediary might (escapes decoded, `\` taken for `/`, `;parameters` dropped, `.`
 * and `..` resolved, empty segments skipped), each segment escaped again; the query as sent. The
 * routers then read every spelling alike, and the access guard finds whether the target spells
 * the route it reached, and gives a path parameter its whole segment, `;` included (see
 * access.guard.ts). Undefined when the target is already plain.
 */
export function routableUrl(url: string): string | undefined {
  const target = originForm(url);
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  if (!ODD_PATH.test(path)) return target === url ? undefined : target;
  const out: string[] = [];
  for (const raw of path.split(/[/\\]/)) {
    const parameters = raw.indexOf(';');
    const segment = decodeSegment(parameters < 0 ? raw : raw.slice(0, parameters));
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(encodeURIComponent(segment));
  }
  return `/${out.join('/')}${query < 0 ? '' : target.slice(query)}`;
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
