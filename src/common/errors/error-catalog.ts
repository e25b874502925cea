/**
 * Every error the API can answer with: one source of truth for status, type, errorCode and
 * the default message (the error table of docs/api.md).
 */
export const ErrorKind = {
  INVALID_PARAMETER: { status: 400, type: 'VALIDATION', message: 'Invalid parameter.' },
  MALFORMED_REQUEST: {
    status: 400,
    type: 'VALIDATION',
    message: 'The request body is not valid JSON.',
  },
  UNSUPPORTED_API_VERSION: {
    status: 400,
    type: 'VALIDATION',
    message: 'Unsupported api-version: only version 1 is available.',
  },
  UNAUTHORIZED: {
    status: 401,
    type: 'FATAL',
    message: 'A valid API key is required in the "key" header.',
  },
  FORBIDDEN: { status: 403, type: 'FATAL', message: 'Access to this resource is not allowed.' },
  TRANSACTION_FAILED: {
    status: 404,
    type: 'FATAL',
    message: 'Transaction declined: incorrect validation key, no records found.',
  },
  NOT_FOUND: { status: 404, type: 'FATAL', message: 'Resource not found.' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    type: 'FATAL',
    message: 'This method is not allowed on this route.',
  },
  CONFLICT: { status: 409, type: 'FATAL', message: 'The request conflicts with stored data.' },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    type: 'VALIDATION',
    message: 'The request body is larger than 1 MiB.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    type: 'VALIDATION',
    message: 'The request body must be application/json.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    type: 'FATAL',
    message: 'The request was not received in time.',
  },
  EXPECTATION_FAILED: {
    status: 417,
    type: 'VALIDATION',
    message: 'The Expect header is not supported.',
  },
  RATE_LIMITED: { status: 429, type: 'FATAL', message: 'Too many requests; retry later.' },
  HEADERS_TOO_LARGE: {
    status: 431,
    type: 'VALIDATION',
    message: 'The request headers are too large.',
  },
  INTERNAL_ERROR: { status: 500, type: 'FATAL', message: 'An unexpected error occurred.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    type: 'FATAL',
    message: 'The service is temporarily unavailable; retry later.',
  },
} as const satisfies Record<
  string,
  { status: number; type: 'VALIDATION' | 'FATAL'; message: string }
>;

export type ErrorCode = keyof typeof ErrorKind;

/** Largest request body (1 MiB); the platforms are configured with it. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Seconds a client should wait after a 503 before retrying. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
