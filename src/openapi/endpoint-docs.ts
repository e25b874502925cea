import type { Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExtension,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiResponseOptions,
  ApiSecurity,
} from '@nestjs/swagger';
import type { ApiParamOptions, ExampleObject, HeaderObject, HeadersObject } from '@nestjs/swagger';
import { ErrorCode, ErrorKind, MAX_BODY_BYTES } from '../common/errors/error-catalog.js';
import { ErrorEnvelopeDto } from '../common/http/error-envelope.dto.js';
import { MAX_JSON_DEPTH } from '../common/http/json-depth.js';
import type { Access } from '../access/declared-access.js';
import { ROLES_INCLUDING, type OperatorRole } from '../access/operator-role.js';

/**
 * The OpenAPI documentation `@Endpoint` (src/http/endpoint.decorator.ts) writes for a route: its
 * operation, security, parameters, headers, answers, and every error it can give with the headers
 * that come with each.
 */

/**
 * `true`: the route reads a JSON body. `'text'`: it reads one and keeps its exact text too (a
 * signature covers the bytes). `'ignored'`: its method may carry one it does not use. Read by the
 * JSON body interceptor (src/http/json-body.interceptor.ts).
 */
export type BodyUse = true | 'text' | 'ignored';

/** Who may call a route; an operator route names the role it needs. */
export type EndpointAccess =
  { access: 'public' | 'merchant'; role?: undefined } | { access: 'operator'; role: OperatorRole };

export interface EndpointDocs {
  /** Stable, named for the domain: generated clients call it by this name. */
  operationId: string;
  summary: string;
  description?: string;
  /** The answers when all goes well. */
  responses: ApiResponseOptions[];
  /** The errors this route answers with besides those of its access and of every request. */
  errors?: ErrorCode[];
  /** What an error means on this route, added to the general explanation. */
  errorNotes?: Partial<Record<ErrorCode, string>>;
  params?: ApiParamOptions[];
  /** Request headers of this route (`api-version` and `x-request-id` are declared everywhere). */
  headers?: { name: string; description: string }[];
  /**
   * `true`: the route reads a JSON body, and any other content type is a 415; `'text'` the same,
   * keeping its exact text. `'ignored'`: its method may carry a body that it does not use; a JSON
   * one is read all the same.
   */
  body?: BodyUse;
  /** The body's schema and one valid example per case, offered by "Try it out". */
  requestBody?: { type: Type<unknown>; examples: Record<string, ExampleObject> };
  /** Other paths the same handler serves, each documented as an alias of this operation. */
  aliases?: PathAlias[];
}

/** What @Endpoint (src/http/endpoint.decorator.ts) documents of a route: its access and details. */
export type DocumentedEndpoint = EndpointAccess & EndpointDocs;

/** Names of the OpenAPI security schemes. */
export const API_KEY_SCHEME = 'apiKey';
export const ADMIN_SCHEME = 'adminToken';

/** The OpenAPI extension that names the role an operator route needs. */
export const ROLE_EXTENSION = 'x-required-role';

/** Headers the document declares on requests and answers. */
export const REQUEST_ID_HEADER = 'x-request-id';
export const API_VERSION_HEADER = 'api-version';
export const RETRY_AFTER_HEADER = 'Retry-After';
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': 'Requests allowed per window.',
  'X-RateLimit-Remaining': 'Requests left in the current window.',
  'X-RateLimit-Reset': 'Seconds until the current window ends.',
} as const;

/**
 * Settings of this deployment that the document quotes (the cache lifetime, the rate limits). A
 * decorator runs before any configuration is read, so it writes a placeholder that the document
 * builder replaces with the configured value.
 */
export type DocumentedSetting =
  | 'catalogCacheTtlSeconds'
  | 'generalLimit'
  | 'generalWindowSeconds'
  | 'notFoundLimit'
  | 'notFoundWindowSeconds';

export function setting(name: DocumentedSetting): string {
  return `{{${name}}}`;
}

/** The placeholders of `setting()` in a text of the document. */
export const SETTING_PLACEHOLDER = /\{\{(\w+)\}\}/g;

/**
 * Extension, removed from the published document, of an operation served at the host's root
 * even under CONTEXT_PATH: its path item gets a server of its own, `/`.
 */
export const AT_HOST_ROOT_EXTENSION = 'x-at-host-root';

/** Extension naming the operation another one is an alias of (same handler, same answers). */
export const ALIAS_OF_EXTENSION = 'x-alias-of';
/** Extension, removed from the published document, that carries an operation's alias paths. */
export const ALIASES_EXTENSION = 'x-path-aliases';

export interface PathAlias {
  /** The alias path, as given to the route decorator. */
  path: string;
  /** The alias's own operationId: unique in the document. */
  operationId: string;
}

/** Errors that come with the access a route needs, whatever the route does. */
const ACCESS_ERRORS: Record<Access, ErrorCode[]> = {
  merchant: ['UNAUTHORIZED', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
  // INVALID_PARAMETER: a repeated Authorization header, whatever the route reads.
  operator: [
    'INVALID_PARAMETER',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'RATE_LIMITED',
    'SERVICE_UNAVAILABLE',
  ],
  public: [],
};

/** Errors any request may be answered with: `api-version` is checked on every request. */
const ANY_ROUTE_ERRORS: ErrorCode[] = ['UNSUPPORTED_API_VERSION', 'INTERNAL_ERROR'];

/** Errors of a route that reads a JSON body. */
const BODY_ERRORS: ErrorCode[] = [
  'MALFORMED_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
];
/** Errors of a route whose method may carry a body it does not use: a JSON one is still parsed. */
const IGNORED_BODY_ERRORS: ErrorCode[] = ['MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE'];
const IGNORED_BODY_NOTE = 'This route takes no body, but a JSON body sent with it is still read.';

/** When each error is answered, as the document explains it. */
const ERROR_WHEN: Record<ErrorCode, string> = {
  INVALID_PARAMETER:
    'A query, path or body field breaks its rule: one entry per field, `field` names it (a dotted path in bodies).',
  MALFORMED_REQUEST: `The request body is not a JSON object: not valid JSON, nested deeper than ${MAX_JSON_DEPTH} levels, holding a \`__proto__\` or \`constructor.prototype\` key, or not an object at the top.`,
  UNSUPPORTED_API_VERSION:
    '`api-version` (or `x-api-version`) is present and not `1`; checked on every request, first.',
  UNAUTHORIZED: 'No API key in `key` (or `x-api-key`), or an unknown or revoked one.',
  FORBIDDEN: 'The caller is known but not allowed here.',
  TRANSACTION_FAILED:
    "No such payment session for this merchant: an unknown key, a key that cannot exist and another merchant's key get these same bytes.",
  NOT_FOUND: 'The resource does not exist.',
  METHOD_NOT_ALLOWED: 'The path does not serve this method; `Allow` lists the methods it serves.',
  CONFLICT: 'The request conflicts with stored data.',
  PAYLOAD_TOO_LARGE: `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB.`,
  UNSUPPORTED_MEDIA_TYPE:
    'The request carries a body whose `Content-Type` is not JSON (`application/json` or `application/*+json`), or names a charset other than UTF-8.',
  REQUEST_TIMEOUT: 'The request was not received in time.',
  EXPECTATION_FAILED: 'The request has an `Expect` header.',
  RATE_LIMITED:
    `More than ${setting('generalLimit')} requests in ${setting('generalWindowSeconds')} s from this API key ` +
    '(or, without a valid key, from this address); retry after `Retry-After` seconds.',
  HEADERS_TOO_LARGE: 'The request headers are too large.',
  INTERNAL_ERROR:
    'Anything unexpected. The details go to the log with the request id, never to the client.',
  SERVICE_UNAVAILABLE:
    'The database does not answer (busy, locked, unreachable or its file gone), or this instance is shutting down; retry after `Retry-After` seconds.',
};

/** What differs for the operator: the bearer token, and only callers without it are limited. */
const OPERATOR_ERROR_WHEN: Partial<Record<ErrorCode, string>> = {
  INVALID_PARAMETER:
    'A query, path or body field breaks its rule: one entry per field, `field` names it (a dotted path in bodies). ' +
    'Also more than one `Authorization` header (`field` is `authorization`, with `WWW-Authenticate: Bearer error="invalid_request"`).',
  UNAUTHORIZED:
    'No `Authorization: Bearer` token (`WWW-Authenticate: Bearer`), or a token that is neither ADMIN_TOKEN nor a working ' +
    'operator\'s: unknown or revoked (`WWW-Authenticate: Bearer error="invalid_token"`), as RFC 6750 says.',
  FORBIDDEN:
    'The operator\'s role does not include the one this route needs (`WWW-Authenticate: Bearer error="insufficient_scope"`). ' +
    "With no ADMIN_TOKEN configured, also any request without a working operator's token (no challenge).",
  RATE_LIMITED:
    `More than ${setting('generalLimit')} requests in ${setting('generalWindowSeconds')} s without a valid token ` +
    'from this address; retry after `Retry-After` seconds. A caller with the valid token is never limited.',
};

/** Example entries where the catalog's default message is not what the route says. */
const OPERATOR_EXAMPLES: Partial<Record<ErrorCode, { message: string; field?: string }>> = {
  UNAUTHORIZED: {
    message: 'The operator API needs "Authorization: Bearer <token>".',
    field: 'authorization',
  },
  FORBIDDEN: { message: "This operator's role (viewer) does not include admin." },
};

/** The `WWW-Authenticate` challenges of operator answers (RFC 6750's bearer challenges). */
const OPERATOR_CHALLENGES: Partial<Record<ErrorCode, { description: string; required: boolean }>> =
  {
    INVALID_PARAMETER: {
      description: '`Bearer error="invalid_request"` when the request repeats `Authorization`.',
      required: false,
    },
    UNAUTHORIZED: {
      description:
        '`Bearer` without a token; `Bearer error="invalid_token"` with an unknown or revoked one.',
      required: true,
    },
    FORBIDDEN: {
      description:
        '`Bearer error="insufficient_scope"` when the role is too small (absent on the 403 of a deployment without ADMIN_TOKEN).',
      required: false,
    },
  };

/** Every error a route can answer: its own, its body's, its access's and every route's. */
export function routeErrors(options: DocumentedEndpoint): ErrorCode[] {
  return [
    ...(options.errors ?? []),
    ...(options.body === true || options.body === 'text'
      ? BODY_ERRORS
      : options.body === 'ignored'
        ? IGNORED_BODY_ERRORS
        : []),
    ...ACCESS_ERRORS[options.access],
    ...ANY_ROUTE_ERRORS,
  ];
}

/** The route's OpenAPI decorators. */
export function endpointDocs(options: DocumentedEndpoint, errors: ErrorCode[]) {
  const security =
    options.access === 'merchant'
      ? [ApiSecurity(API_KEY_SCHEME)]
      : options.access === 'operator'
        ? [ApiBearerAuth(ADMIN_SCHEME)]
        : [];
  return [
    ApiOperation({
      operationId: options.operationId,
      summary: options.summary,
      description: withRole(options.description, options.role),
    }),
    ...security,
    ...(options.role ? [ApiExtension(ROLE_EXTENSION, options.role)] : []),
    ...(options.aliases?.length ? [ApiExtension(ALIASES_EXTENSION, options.aliases)] : []),
    ...(options.params ?? []).map((param) => ApiParam(param)),
    ...requestHeaders(options.headers ?? []).map((header) => ApiHeader(header)),
    ...(options.requestBody
      ? [
          ApiBody({
            type: options.requestBody.type,
            required: true,
            examples: options.requestBody.examples,
          }),
        ]
      : []),
    ...options.responses.map((response) =>
      ApiResponse({
        ...response,
        headers: { ...successHeaders(options.access), ...response.headers },
      } as ApiResponseOptions),
    ),
    ...errorResponses(errors, options.access, {
      ...(options.body === 'ignored'
        ? { MALFORMED_REQUEST: IGNORED_BODY_NOTE, PAYLOAD_TOO_LARGE: IGNORED_BODY_NOTE }
        : {}),
      ...options.errorNotes,
    }),
  ];
}

/** An operator route's description ends with the roles that may call it. */
function withRole(description: string | undefined, role: OperatorRole | undefined) {
  if (!role) return description;
  const roles = ROLES_INCLUDING[role].map((r) => `\`${r}\``).join(', ');
  const line = `**Role:** ${roles} (ADMIN_TOKEN is \`root\`, with every role).`;
  return description ? `${description}\n\n${line}` : line;
}

function requestHeaders(own: { name: string; description: string }[]) {
  return [
    ...own.map((header) => ({ ...header, required: false })),
    {
      name: API_VERSION_HEADER,
      required: false,
      description:
        'API version: absent or `1` (alias `x-api-version`); any other value is a 400 UNSUPPORTED_API_VERSION.',
      schema: { type: 'string', enum: ['1'] },
    },
    {
      name: REQUEST_ID_HEADER,
      required: false,
      description:
        'Echoed in the answer and written on every log line of the request when it is 1 to 128 of `A-Z a-z 0-9 . _ : -`; otherwise (or when absent) a new UUID is used.',
    },
  ];
}

const header = (description: string, schema: HeaderObject['schema'], required = true) => ({
  description,
  required,
  schema,
});

function requestIdHeader(): HeadersObject {
  return {
    [REQUEST_ID_HEADER]: header(
      "The request's id: the one sent in `x-request-id` when usable, else a new UUID. Quote it when reporting a problem.",
      { type: 'string' },
    ),
  };
}

function rateLimitHeaders(required: boolean, note = ''): HeadersObject {
  return Object.fromEntries(
    Object.entries(RATE_LIMIT_HEADERS).map(([name, description]) => [
      name,
      header(`${description}${note}`, { type: 'integer', minimum: 0 }, required),
    ]),
  );
}

/** Merchant routes count every request; the operator and public routes are not limited. */
function successHeaders(access: Access): HeadersObject {
  return { ...requestIdHeader(), ...(access === 'merchant' ? rateLimitHeaders(true) : {}) };
}

type Presence = 'always' | 'sometimes' | 'never';

/**
 * Whether an error answer carries the rate-limit headers. Merchant requests are counted right
 * after `api-version` is checked, so every later answer has them (a database fault may come
 * before or after the count). Operator requests are counted only when their token is missing or
 * wrong.
 */
function rateLimitPresence(access: Access, code: ErrorCode): Presence {
  if (access === 'merchant') {
    if (code === 'UNSUPPORTED_API_VERSION') return 'never';
    return code === 'SERVICE_UNAVAILABLE' || code === 'INTERNAL_ERROR' ? 'sometimes' : 'always';
  }
  if (access === 'operator') {
    return ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'].includes(code) ? 'always' : 'never';
  }
  return 'never';
}

function errorHeaders(access: Access, codes: ErrorCode[]): HeadersObject {
  const presence = new Set(codes.map((code) => rateLimitPresence(access, code)));
  const headers: HeadersObject = { ...requestIdHeader() };
  if (presence.size === 1 && presence.has('always')) {
    Object.assign(headers, rateLimitHeaders(true));
  } else if (!(presence.size === 1 && presence.has('never'))) {
    const absentOn = codes.filter((code) => rateLimitPresence(access, code) !== 'always');
    Object.assign(
      headers,
      rateLimitHeaders(false, ` Not always sent with ${absentOn.join(', ')}.`),
    );
  }
  if (codes.includes('RATE_LIMITED') || codes.includes('SERVICE_UNAVAILABLE')) {
    headers[RETRY_AFTER_HEADER] = header('Seconds to wait before retrying.', {
      type: 'integer',
      minimum: 1,
    });
  }
  const challenge =
    access === 'operator'
      ? codes.map((code) => OPERATOR_CHALLENGES[code]).find((c) => c !== undefined)
      : undefined;
  if (challenge) {
    headers['WWW-Authenticate'] = header(
      challenge.description,
      { type: 'string' },
      challenge.required,
    );
  }
  if (codes.includes('TRANSACTION_FAILED')) {
    headers['Cache-Control'] = header('The answer must not be stored.', {
      type: 'string',
      enum: ['no-store'],
    });
  }
  return headers;
}

/** The error envelope for each code, grouped by HTTP status, with a real example per code. */
function errorResponses(
  codes: ErrorCode[],
  access: Access,
  notes: Partial<Record<ErrorCode, string>>,
): MethodDecorator[] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ErrorKind[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, statusCodes]) =>
      ApiResponse({
        status,
        description: statusCodes
          .map(
            (code) =>
              `**${code}**: ${explain(code, access)}${notes[code] ? ` ${notes[code]}` : ''}`,
          )
          .join('\n\n'),
        type: ErrorEnvelopeDto,
        headers: errorHeaders(access, statusCodes),
        examples: Object.fromEntries(
          statusCodes.map((code) => [
            code,
            { summary: code, value: { errors: [exampleItem(code, access)] } },
          ]),
        ),
      }),
    );
}

function explain(code: ErrorCode, access: Access): string {
  return (access === 'operator' ? OPERATOR_ERROR_WHEN[code] : undefined) ?? ERROR_WHEN[code];
}

function exampleItem(code: ErrorCode, access: Access) {
  const override = access === 'operator' ? OPERATOR_EXAMPLES[code] : undefined;
  const field =
    override?.field ??
    {
      INVALID_PARAMETER: 'countryCode',
      TRANSACTION_FAILED: 'validationKey',
      UNSUPPORTED_API_VERSION: API_VERSION_HEADER,
      UNAUTHORIZED: 'key',
    }[code as string];
  return {
    type: ErrorKind[code].type,
    errorCode: code,
    message: override?.message ?? ErrorKind[code].message,
    ...(field === undefined ? {} : { field }),
  };
}
