import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** What both platforms' response objects offer for setting status and headers. */
export interface ResponseControls {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A 304 Not Modified, returned in place of the answer's body: no body, so no Content-Type or
 * Content-Length (RFC 9110: a 304 has no content; given no body, both platforms send neither). To a
 * HEAD the body is handed back with its type: Fastify's HEAD routes set Content-Length from what
 * the handler gives (0 for nothing), and the 200's length is the one a 304 may carry; Express
 * drops both from any 304.
 */
export function notModified(
  response: ResponseControls,
  method: string | undefined,
  answer: { body: string; contentType?: string },
): string | undefined {
  response.status(304);
  if (method !== 'HEAD') return undefined;
  if (answer.contentType !== undefined) response.header('Content-Type', answer.contentType);
  return answer.body;
}

/**
 * The connection closes once this response is sent: Node's server reads `Connection: close` in
 * the response's own headers and ends the connection after it (a response already under way
 * keeps its headers).
 */
export function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}

/** A strong ETag: the same bytes give the same tag; `salt` makes other changes show too. */
export function strongEtag(body: string, salt = ''): string {
  const digest = createHash('sha256').update(salt).update(body).digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

/**
 * Whether an If-None-Match header matches the current tag (RFC 9110: weak comparison, a list of
 * tags, or `*`).
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .includes(etag);
}
