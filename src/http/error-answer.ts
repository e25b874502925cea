import type { ServerResponse } from 'node:http';
import { ApiError, TRANSACTION_NOT_FOUND_BODY } from '../common/errors/api-error.js';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../common/errors/error-catalog.js';
import { JSON_CONTENT_TYPE } from '../common/http/response.js';

/** An error as it goes on the wire: status, headers and the envelope's bytes. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The one rendering of an ApiError, whoever answers: the errors filter, admission before
 * routing, or the handlers of requests Node could not even parse.
 */
export function answerOf(error: ApiError): ErrorAnswer {
  const headers = { ...error.headers };
  if (error.code === 'SERVICE_UNAVAILABLE') {
    headers['Retry-After'] ??= String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS);
  }
  if (error.code === 'TRANSACTION_FAILED') {
    // The same bytes and headers for every miss: unknown, impossible or another merchant's key.
    return {
      status: 404,
      headers: { ...headers, 'Cache-Control': 'no-store' },
      body: TRANSACTION_NOT_FOUND_BODY,
    };
  }
  return { status: error.status, headers, body: JSON.stringify(error.envelope) };
}

/** Writes the answer on a response nothing has been written to yet. */
export function writeAnswer(response: ServerResponse, answer: ErrorAnswer): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  response.setHeader('Content-Type', JSON_CONTENT_TYPE);
  response.setHeader('Content-Length', Buffer.byteLength(answer.body));
  response.end(answer.body);
}

/**
 * The answer as raw HTTP/1.1 bytes that close the connection, for a socket on which Node has no
 * request to answer (a request it could not parse, CONNECT).
 */
export function rawAnswer(answer: ErrorAnswer, statusText: string): string {
  const headers = Object.entries({
    ...answer.headers,
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(answer.body)),
    Connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${answer.status} ${statusText}\r\n${headers}\r\n${answer.body}`;
}
