import { SetMetadata, UseGuards, applyDecorators } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiHeader,
  ApiHeaderOptions,
  ApiOperation,
  ApiParam,
  ApiParamOptions,
  ApiResponse,
  ApiResponseOptions,
  ApiSecurity,
} from '@nestjs/swagger';
import { ErrorCode, ErrorKind } from '../errors/error-catalog.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';
import { JsonBodyGuard } from './json-body.guard.js';

/** Names of the OpenAPI security schemes. */
export const API_KEY_SCHEME = 'apiKey';
export const ADMIN_SCHEME = 'adminToken';

/** Who may call a route: a merchant with an API key, the operator with the admin token, or anyone. */
export type Access = 'merchant' | 'operator' | 'public';
export const ACCESS = 'access';

/** Errors that come with the access a route needs, whatever the route does. */
const ACCESS_ERRORS: Record<Access, ErrorCode[]> = {
  merchant: ['UNSUPPORTED_API_VERSION', 'UNAUTHORIZED', 'RATE_LIMITED'],
  operator: ['UNSUPPORTED_API_VERSION', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  public: ['UNSUPPORTED_API_VERSION'],
};

/** Errors any route may answer with. */
const ANY_ROUTE_ERRORS: ErrorCode[] = ['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

export interface EndpointOptions {
  /** Stable, named for the domain: generated clients call it by this name. */
  operationId: string;
  summary: string;
  description?: string;
  access: Access;
  /** The answers when all goes well. */
  responses: ApiResponseOptions[];
  /** The errors this route answers with besides those of its access. */
  errors?: ErrorCode[];
  params?: ApiParamOptions[];
  headers?: ApiHeaderOptions[];
  /** The route reads a JSON body: any other content type is a 415. */
  body?: boolean;
}

/**
 * A route's whole declaration: who may call it (enforced before routing by the path's policy,
 * which start-up checks against this declaration), what it reads, and its documentation —
 * operation, answers and every error it can give.
 */
export function Endpoint(options: EndpointOptions): MethodDecorator {
  const security =
    options.access === 'merchant'
      ? [ApiSecurity(API_KEY_SCHEME)]
      : options.access === 'operator'
        ? [ApiBearerAuth(ADMIN_SCHEME)]
        : [];
  return applyDecorators(
    SetMetadata(ACCESS, options.access),
    ...(options.body ? [UseGuards(JsonBodyGuard)] : []),
    ApiOperation({
      operationId: options.operationId,
      summary: options.summary,
      description: options.description,
    }),
    ...security,
    ...(options.params ?? []).map((param) => ApiParam(param)),
    ...(options.headers ?? []).map((header) => ApiHeader(header)),
    ...options.responses.map((response) => ApiResponse(response)),
    ...errorResponses([
      ...(options.errors ?? []),
      ...ACCESS_ERRORS[options.access],
      ...ANY_ROUTE_ERRORS,
    ]),
  );
}

/** The error envelope for each code, grouped by HTTP status, with a real example per code. */
function errorResponses(codes: ErrorCode[]): MethodDecorator[] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ErrorKind[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()].map(([status, statusCodes]) =>
    ApiResponse({
      status,
      description: statusCodes.join(' or '),
      type: ErrorEnvelopeDto,
      examples: Object.fromEntries(
        statusCodes.map((code) => [
          code,
          { summary: code, value: { errors: [exampleItem(code)] } },
        ]),
      ),
    }),
  );
}

function exampleItem(code: ErrorCode) {
  const field =
    code === 'INVALID_PARAMETER'
      ? 'countryCode'
      : code === 'TRANSACTION_FAILED'
        ? 'validationKey'
        : undefined;
  return {
    type: ErrorKind[code].type,
    errorCode: code,
    message: ErrorKind[code].message,
    ...(field === undefined ? {} : { field }),
  };
}
