import { SetMetadata, UseInterceptors, applyDecorators } from '@nestjs/common';
import type { ApiResponseOptions } from '@nestjs/swagger';
import { ACCESS, type DeclaredAccess } from '../access/declared-access.js';
import { endpointDocs, routeErrors, type DocumentedEndpoint } from '../openapi/endpoint-docs.js';
import { ENVELOPE, type Envelope } from './envelope.interceptor.js';
import { BODY, JsonBodyInterceptor } from './json-body.interceptor.js';
import { Mapped, type RouteMethod } from './routes.js';

/**
 * A route's declaration: its method and path, who may call it and its documentation, and its
 * success envelope.
 */
export type EndpointOptions = DocumentedEndpoint & {
  method: Exclude<RouteMethod, 'ALL'>;
  /** The whole path (controllers take none), below CONTEXT_PATH or at the host root; or aliases. */
  path: string | string[];
  /** The success envelope the interceptor shapes around the route's value (see Envelope). */
  envelope?: Envelope;
};

/**
 * A route's whole declaration: its method and path (Nest's `@Get(path)`, …, see Mapped), who may
 * call it (enforced by the access guard), what it reads (its body, read by the JSON body
 * interceptor), how its answer is enveloped (the envelope interceptor), and its documentation —
 * operation, answers, every error it can give and the headers that come with each.
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
    Mapped(options.method, options.path),
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
