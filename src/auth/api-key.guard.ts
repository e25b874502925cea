import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/errors/api-error.js';
import { accessOf } from './access.js';
import { AuthRequest, RequestAuthenticator } from './request-authenticator.js';

/** Merchant routes need a known, unrevoked key in `key` (or `x-api-key`). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // Operator routes have their own guard; a merchant key never opens them.
    if (accessOf(this.reflector, context) !== 'merchant') return true;
    const principal = await this.authenticator.principalOf(
      context.switchToHttp().getRequest<AuthRequest>(),
    );
    if (!principal) throw new ApiError('UNAUTHORIZED', { field: 'key' });
    return true;
  }
}
