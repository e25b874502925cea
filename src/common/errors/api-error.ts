import { ErrorCode, ErrorKind } from './error-catalog.js';

/** One entry of the error envelope. */
export interface ErrorItem {
  type: string;
  errorCode: string;
  message: string;
  field?: string;
}

export interface ErrorEnvelope {
  errors: ErrorItem[];
}

/**
 * The one exception the application throws on purpose. The errors filter turns it into the
 * error envelope `{"errors":[...]}` with the catalog's status.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly items: ErrorItem[];
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    options: { message?: string; field?: string; headers?: Record<string, string> } = {},
  ) {
    const kind = ErrorKind[code];
    const message = options.message ?? kind.message;
    // An answer, not a fault: its stack is never logged, so none is captured (capturing one
    // shows in the profile of a 404 lookup, bench/README.md, "History").
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.status = kind.status;
    this.code = code;
    this.headers = options.headers ?? {};
    this.items = [errorItem(code, message, options.field)];
  }

  /** A 400 with one INVALID_PARAMETER entry per field. */
  static invalidParameters(fields: { field: string; message: string }[]): ApiError {
    const error = new ApiError('INVALID_PARAMETER');
    error.items.splice(
      0,
      error.items.length,
      ...fields.map((f) => errorItem('INVALID_PARAMETER', f.message, f.field)),
    );
    return error;
  }

  get envelope(): ErrorEnvelope {
    return { errors: this.items };
  }
}

export function errorItem(code: ErrorCode, message?: string, field?: string): ErrorItem {
  const kind = ErrorKind[code];
  const item: ErrorItem = { type: kind.type, errorCode: code, message: message ?? kind.message };
  if (field !== undefined) item.field = field;
  return item;
}

/** The exact 404 body of the status lookup, shared by unknown, over-long and foreign keys. */
export const TRANSACTION_NOT_FOUND_BODY = JSON.stringify({
  errors: [errorItem('TRANSACTION_FAILED', undefined, 'validationKey')],
});
