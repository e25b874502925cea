import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { headerValue } from '../common/http/headers.js';

/** `api-version` (alias `x-api-version`) may be absent or 1; anything else is a 400. */
@Injectable()
export class ApiVersionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    const version = headerValue(request.headers, 'api-version', 'x-api-version');
    if (version !== undefined && version.trim() !== '1') {
      throw new ApiError('UNSUPPORTED_API_VERSION', { field: 'api-version' });
    }
    return true;
  }
}
