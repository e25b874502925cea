import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorCode, ErrorKind } from '../errors/error-catalog.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';

/**
 * Documents the error envelope for each given error code, grouped by HTTP status, with a real
 * example per code. Every route also gets the errors any route can answer with.
 */
export function ApiErrorResponses(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const all: ErrorCode[] = [
    ...codes,
    'UNSUPPORTED_API_VERSION',
    'RATE_LIMITED',
    'INTERNAL_ERROR',
    'SERVICE_UNAVAILABLE',
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(all)) {
    const status = ErrorKind[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ...[...byStatus.entries()].map(([status, statusCodes]) =>
      ApiResponse({
        status,
        description: statusCodes.join(' or '),
        type: ErrorEnvelopeDto,
        examples: Object.fromEntries(
          statusCodes.map((code) => [
            code,
            {
              summary: code,
              value: {
                errors: [
                  {
                    type: ErrorKind[code].type,
                    errorCode: code,
                    message: ErrorKind[code].message,
                    ...(code === 'INVALID_PARAMETER' ? { field: 'countryCode' } : {}),
                    ...(code === 'TRANSACTION_FAILED' ? { field: 'validationKey' } : {}),
                  },
                ],
              },
            },
          ]),
        ),
      }),
    ),
  );
}
