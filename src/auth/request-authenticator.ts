import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { headerValue } from '../common/http/headers.js';
import { MerchantService } from '../merchants/merchant.service.js';
import {
  PRINCIPAL,
  RequestPrincipal,
  RequestWithPrincipal,
  rateLimitTracker,
} from './current-caller.decorator.js';

const RESOLVED = Symbol('resolvedPrincipal');

export type AuthRequest = RequestWithPrincipal & {
  headers: Record<string, unknown>;
  [RESOLVED]?: Promise<RequestPrincipal | undefined>;
};

/**
 * Works out who is calling, once per request: the rate limiter and the auth guard both ask.
 * With AUTH_MODE=none everyone is an anonymous principal that sees all merchants.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly merchants: MerchantService,
  ) {}

  principalOf(request: AuthRequest): Promise<RequestPrincipal | undefined> {
    request[RESOLVED] ??= this.resolve(request).then((principal) => {
      if (principal) request[PRINCIPAL] = principal;
      return principal;
    });
    return request[RESOLVED];
  }

  /** Who a rate limit counts against: the API key when valid, else the caller's address. */
  async trackerOf(request: AuthRequest): Promise<string> {
    await this.principalOf(request);
    return rateLimitTracker(request);
  }

  private async resolve(request: AuthRequest): Promise<RequestPrincipal | undefined> {
    if (this.config.authMode === 'none') return {};
    const key = headerValue(request.headers, 'key', 'x-api-key');
    if (key === undefined || key.length === 0 || key.length > 256) return undefined;
    const resolved = await this.merchants.resolve(key);
    return resolved && { merchantId: resolved.merchantId, keyId: resolved.keyId };
  }
}
