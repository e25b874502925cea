import type { DeclaredAccess } from '../access/declared-access.js';
import type { OperatorRole } from '../operators/operator-role.js';
import { SetMetadata, Type, UseInterceptors, applyDecorators } from '@nestjs/common';
import type { ApiParamOptions, ApiResponseOptions, ExampleObject } from '@nestjs/swagger';
import type { ErrorCode } from '../common/errors/error-catalog.js';
import { endpointDocs, routeErrors, type PathAlias } from '../openapi/endpoint-docs.js';
import { JsonBodyInterceptor } from './json-body.interceptor.js';

/** The metadata key of a route's DeclaredAccess (src/access/declared-access.ts). */
export const ACCESS = 'access';

/**
 * How the envelope interceptor answers a route's value: `payload` wraps one element
 * (`{"payload":[element]}`), `list` a Listing (`{...its fields, "payload": items, "page"?}`).
 * `etag` adds a strong ETag of the bytes and answers a matching `If-None-Match` with a 304.
 */
export interface Envelope {
  kind: 'payload' | 'list';
  etag?: boolean;
}
export const ENVELOPE = 'envelope';

/**
 * `true`: the route reads a JSON body. `'text'`: it reads one and keeps its exact text too (a
 * signature covers the bytes). `'ignored'`: its method may carry one it does not use.
 */
export type BodyUse = true | 'text' | 'ignored';
export const BODY = 'body';

export type EndpointAccess =
  { access: 'public' | 'merchant'; role?: undefined } | { access: 'operator'; role: OperatorRole };

export type EndpointOptions = EndpointAccess & EndpointDetails;

export interface EndpointDetails {
  /** Stable, named for the domain: generated clients call it by this name. */
  operationId: string;
  summary: string;
  description?: string;
  /** The answers when all goes well. */
  responses: ApiResponseOptions[];
  /** The success envelope the interceptor shapes around the route's value (see Envelope). */
  envelope?: Envelope;
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

/**
 * A route's whole declaration: who may call it (enforced by the access guard), what it reads (its
 * body, read by the JSON body interceptor), how its answer is enveloped (the envelope
 * interceptor), and its documentation — operation, answers, every error it can give and the
 * headers that come with each.
 */
export function Endpoint(options: EndpointOptions): MethodDecorator {
  const errors = routeErrors(options);
  const declared: DeclaredAccess = {
    access: options.access,
    role: options.role,
    action: options.operationId,
    status: successStatus(options.responses),
    usesDatabase: options.access !== 'public' || errors.includes('SERVICE_UNAVAILABLE'),
  };
  return applyDecorators(
    SetMetadata(ACCESS, declared),
    ...(options.envelope ? [SetMetadata(ENVELOPE, options.envelope)] : []),
    ...(options.body
      ? [SetMetadata(BODY, options.body), UseInterceptors(JsonBodyInterceptor)]
      : []),
    ...endpointDocs(options, errors),
  );
}

/** The first 2xx status a route documents: what it answers when all goes well. */
function successStatus(responses: ApiResponseOptions[]): number {
  for (const response of responses) {
    const status = Number((response as { status?: unknown }).status);
    if (status >= 200 && status < 300) return status;
  }
  return 200;
}
