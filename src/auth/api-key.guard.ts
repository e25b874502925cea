import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/errors/api-error.js';
import { IS_ADMIN } from './admin.guard.js';
import { IS_PUBLIC } from './public.decorator.js';
import { AuthRequest, RequestAuthenticator } from './request-authenticator.js';

/** Merchant routes need a known, unrevoked key in `key` (or `x-api-key`). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    // Operator routes have their own guard; a merchant key never opens them.
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_ADMIN, targets)) return true;
    const principal = await this.authenticator.principalOf(
      context.switchToHttp().getRequest<AuthRequest>(),
    );
    if (!principal) throw new ApiError('UNAUTHORIZED', { field: 'key' });
    return true;
  }
}
