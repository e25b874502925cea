import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/errors/api-error.js';
import { headerValue } from '../common/http/headers.js';
import { accessOf } from './access.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Operator routes: `Authorization: Bearer <ADMIN_TOKEN>`. With no ADMIN_TOKEN configured they are
 * closed (403). Tokens are compared as SHA-256 digests in constant time, so neither the content
 * nor the length of the token leaks through timing.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer | undefined;

  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.expected = config.adminToken === undefined ? undefined : digest(config.adminToken);
  }

  canActivate(context: ExecutionContext): boolean {
    if (accessOf(this.reflector, context) !== 'operator') return true;
    if (!this.expected) {
      throw new ApiError('FORBIDDEN', {
        message: 'The operator API is disabled: no ADMIN_TOKEN is configured.',
      });
    }
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    const header = headerValue(request.headers, 'authorization') ?? '';
    const match = /^Bearer (.+)$/i.exec(header);
    if (!match) {
      throw new ApiError('UNAUTHORIZED', {
        message: 'The operator API needs "Authorization: Bearer <ADMIN_TOKEN>".',
        field: 'authorization',
      });
    }
    if (!timingSafeEqual(digest(match[1]), this.expected)) {
      throw new ApiError('FORBIDDEN', { message: 'This token does not open the operator API.' });
    }
    return true;
  }
}
