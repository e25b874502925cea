import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { strongEtag } from '../common/http/response.js';

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
  /** The answer's status when not 200 (a page saying no payment has this link: 404). */
  status?: number;
}

export function isWebAnswer(value: unknown): value is WebAnswer {
  return typeof value === 'object' && value !== null && (value as WebAnswer).kind === 'web';
}

/** How long browsers may keep the scripts and stylesheets before asking again (with an ETag). */
export const ASSET_MAX_AGE_SECONDS = 300;

/**
 * A file a feature folder serves pages from: `views/` (templates) or `public/` (scripts and
 * stylesheets), beside the module at `moduleUrl` (its `import.meta.url`); the build copies them
 * beside the compiled code (scripts/build.mjs).
 */
export function pageFile(moduleUrl: string, folder: 'views' | 'public', name: string): string {
  return readFileSync(fileURLToPath(new URL(`./${folder}/${name}`, moduleUrl)), 'utf8');
}

/** A script or stylesheet, read once: cacheable, with a strong ETag. */
export function staticAnswer(body: string, contentType: string, crossOrigin = false): WebAnswer {
  return {
    kind: 'web',
    body,
    etag: strongEtag(body),
    headers: {
      'Content-Type': contentType,
      'Cache-Control': `public, max-age=${ASSET_MAX_AGE_SECONDS}`,
      // Loaded by merchants' pages, from their own origins.
      ...(crossOrigin ? { 'Cross-Origin-Resource-Policy': 'cross-origin' } : {}),
    },
  };
}

export const SCRIPT_TYPE = 'text/javascript; charset=utf-8';
export const STYLESHEET_TYPE = 'text/css; charset=utf-8';

/** What a page may load and who may frame it: its Content-Security-Policy, no inline script. */
export interface PagePolicy {
  /** Origins that may frame the page; none when empty. */
  frameAncestors: readonly string[];
  /** The page frames pages of this service (the widget's iframe). */
  framesSelf?: boolean;
}

/** A rendered page: never cached, with its own Content-Security-Policy. */
export function pageAnswer(html: string, policy: PagePolicy): WebAnswer {
  const ancestors = policy.frameAncestors.length > 0 ? policy.frameAncestors.join(' ') : "'none'";
  return {
    kind: 'web',
    body: html,
    // A page others frame must not carry X-Frame-Options, which would forbid it.
    ...(policy.frameAncestors.length > 0 ? { withoutHeaders: ['X-Frame-Options'] } : {}),
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        ...(policy.framesSelf ? ["frame-src 'self'"] : []),
        "form-action 'self'",
        "base-uri 'none'",
        `frame-ancestors ${ancestors}`,
      ].join('; '),
    },
  };
}

/** How the document describes a script or stylesheet answer: cacheable, with an ETag. */
export function assetResponse(type: string, example: string) {
  return {
    status: 200,
    description: `The file; \`If-None-Match\` with its ETag answers 304 Not Modified.`,
    headers: {
      ETag: { description: 'Strong tag of the bytes.', required: true, schema: { type: 'string' } },
      'Cache-Control': {
        description: `Browsers may keep it ${ASSET_MAX_AGE_SECONDS} s.`,
        required: true,
        schema: { type: 'string' },
      },
    },
    content: { [type]: { schema: { type: 'string' }, example } },
  };
}

/** How the document describes a page answer. */
export function htmlResponse(description: string) {
  return {
    status: 200,
    description,
    content: {
      'text/html': {
        schema: { type: 'string' },
        example: '<!doctype html><html lang="en">…</html>',
      },
    },
  };
}
