import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';
import { headerValue } from './headers.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * A request that carries a body must carry JSON. Both platforms answer the same 415, whatever
 * parsers they happen to have for other types.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { headers } = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    const length = headerValue(headers, 'content-length');
    const hasBody =
      headerValue(headers, 'transfer-encoding') !== undefined ||
      (length !== undefined && length.trim() !== '0');
    if (!hasBody) return true;
    const type = headerValue(headers, 'content-type') ?? '';
    if (!JSON_TYPE.test(type)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
    return true;
  }
}
