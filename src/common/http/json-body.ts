import type { IncomingMessage } from 'node:http';
import secureJson from 'secure-json-parse';
import { ApiError } from '../errors/api-error.js';
import { MAX_BODY_BYTES } from '../errors/error-catalog.js';
import { headerValue } from './headers.js';
import { forbiddenKeyPath } from './forbidden-keys.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { decodeUtf8, parseJsonText, textFieldRefusals } from './json-text.js';

/** `application/json` and `application/<anything>+json`, with parameters or none. */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** Whether the request carries a body (of any length, announced or chunked). */
export function hasBody(request: IncomingMessage): boolean {
  const length = headerValue(request.headers, 'content-length');
  return (
    headerValue(request.headers, 'transfer-encoding') !== undefined ||
    (length !== undefined && length.trim() !== '0')
  );
}

/** Whether the request's Content-Type is JSON. */
export function isJsonType(request: IncomingMessage): boolean {
  return JSON_TYPE.test(headerValue(request.headers, 'content-type') ?? '');
}

/**
 * Reads a JSON body the same way on every platform: JSON only (415), not compressed (a
 * Content-Encoding other than `identity` is a 415: the body is not read as JSON when it is not),
 * UTF-8 only (RFC 8259: a charset other than UTF-8 is a 415), at most 1 MiB (413, refused from
 * Content-Length before a byte is read), nested at most 32 levels (checked before parsing), each
 * name at most once per object, no `__proto__` or `constructor.prototype` key (prototype
 * poisoning), an object at the top (400 otherwise), and text fields that are text: no byte that
 * is not UTF-8, no lone surrogate, no control character (400 naming each field). Numbers keep
 * the text they were sent as where it matters (see JsonNumberText). A leading byte order mark is
 * skipped.
 */
export async function readJsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  return (await readJsonBodyText(request)).value;
}

/** readJsonBody, and the body's text as it came (for a signature over its exact bytes). */
export async function readJsonBodyText(
  request: IncomingMessage,
): Promise<{ text: string; value: Record<string, unknown> }> {
  if (!hasBody(request)) throw notAnObject();
  const type = headerValue(request.headers, 'content-type') ?? '';
  if (!JSON_TYPE.test(type)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
  const encoding = headerValue(request.headers, 'content-encoding')?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      message: `Request bodies are read uncompressed only (the request says Content-Encoding: ${printable(encoding)}).`,
      field: 'content-encoding',
    });
  }
  const charset = CHARSET.exec(type)?.[1].toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      message: `JSON bodies must be UTF-8 (the request says charset=${printable(charset)}).`,
    });
  }
  const text = await readText(request);
  if (nestsDeeperThan(text)) {
    throw new ApiError('MALFORMED_REQUEST', {
      message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
    });
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    const duplicate = /^Duplicate key '(.*)' encountered/.exec((error as Error).message);
    throw new ApiError('MALFORMED_REQUEST', {
      message: duplicate
        ? `The request body gives the name ${printable(JSON.stringify(duplicate[1]))} twice in one object.`
        : undefined,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notAnObject();
  try {
    secureJson.scan(value, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw forbiddenKey(value);
  }
  const refusals = textFieldRefusals(value);
  if (refusals.length > 0) throw ApiError.invalidParameters(refusals);
  return { text, value: value as Record<string, unknown> };
}

/** Valid JSON holding a key refused for prototype poisoning: the answer names it, and where. */
function forbiddenKey(value: unknown): ApiError {
  const path = forbiddenKeyPath(value);
  const key = path?.endsWith('.prototype') ? 'constructor.prototype' : '__proto__';
  return new ApiError('MALFORMED_REQUEST', {
    message: `The request body holds the key ${key}${path === undefined ? '' : ` (at ${path})`}, which is refused: it could alter the objects that read it.`,
    ...(path === undefined ? {} : { field: path }),
  });
}

function notAnObject(): ApiError {
  return new ApiError('MALFORMED_REQUEST', { message: 'The request body must be a JSON object.' });
}

/**
 * The client went away before its body arrived (Node reports the connection reset as the
 * request's error). Nothing can be answered, and it says nothing of the database.
 */
export class ClientAborted extends Error {
  constructor() {
    super('The client closed the connection before the request body arrived');
    this.name = 'ClientAborted';
  }
}

/** The body as UTF-8 text (see decodeUtf8), refused past 1 MiB whatever it announced. */
function readText(request: IncomingMessage): Promise<string> {
  const announced = Number(headerValue(request.headers, 'content-length'));
  if (announced > MAX_BODY_BYTES) return Promise.reject(new ApiError('PAYLOAD_TOO_LARGE'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        cleanUp();
        reject(new ApiError('PAYLOAD_TOO_LARGE'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanUp();
      const text = decodeUtf8(Buffer.concat(chunks));
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    };
    const onError = () => {
      cleanUp();
      reject(new ClientAborted());
    };
    const cleanUp = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}

function printable(value: string): string {
  const shown = value.replace(/[^\x20-\x7e]/g, '?');
  return shown.length > 32 ? `${shown.slice(0, 32)}…` : shown;
}
