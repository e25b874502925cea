import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { attachCaller } from '../auth/current-caller.decorator.js';
import { OperatorToken } from '../auth/operator-token.js';
import { RateLimits } from '../auth/rate-limits.js';
import { ApiError } from '../common/errors/api-error.js';
import { headerValue } from '../common/http/headers.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MAX_API_KEY_LENGTH } from '../merchants/api-key.js';
import { MerchantService } from '../merchants/merchant.service.js';
import type { PathInfo } from './paths.js';

/**
 * The checks every request passes before it is routed, decided by its path alone so that no
 * spelling of a path slips past them: `api-version`, then for merchant paths (`/api`) the rate
 * limit and the API key, for operator paths (`/admin`, `/metrics`) the bearer token. A caller
 * without valid credentials is counted per address before being refused, so guessing keys or
 * tokens is limited too; the operator with a valid token is not limited.
 */
@Injectable()
export class Admission {
  private readonly checkVersion: boolean;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly merchants: MerchantService,
    private readonly limits: RateLimits,
    private readonly operatorToken: OperatorToken,
  ) {
    this.checkVersion = !config.layersOff.has('version');
  }

  /** Undefined when the request may go on; else the refusal to answer with. */
  async refusal(
    request: IncomingMessage,
    response: ServerResponse,
    path: PathInfo,
  ): Promise<ApiError | undefined> {
    if (this.checkVersion) {
      const version = headerValue(request.headers, 'api-version', 'x-api-version');
      if (version !== undefined && version.trim() !== '1') {
        return new ApiError('UNSUPPORTED_API_VERSION', { field: 'api-version' });
      }
    }
    if (path.policy === 'public') return undefined;
    const address = `ip:${request.socket.remoteAddress ?? 'unknown'}`;

    if (path.policy === 'operator') {
      const refusal = this.operatorToken.refusal(headerValue(request.headers, 'authorization'));
      if (!refusal) return undefined;
      return (await this.count(address, response)) ?? refusal;
    }

    if (this.config.authMode === 'none') {
      attachCaller(request, { tracker: address });
      return this.count(address, response);
    }
    const key = headerValue(request.headers, 'key', 'x-api-key');
    const resolved =
      key !== undefined && key.length > 0 && key.length <= MAX_API_KEY_LENGTH
        ? await this.merchants.resolve(key)
        : undefined;
    const tracker = resolved ? `key:${resolved.keyId}` : address;
    const limited = await this.count(tracker, response);
    if (limited) return limited;
    if (!resolved) return new ApiError('UNAUTHORIZED', { field: 'key' });
    attachCaller(request, { merchantId: resolved.merchantId, tracker });
    return undefined;
  }

  private async count(tracker: string, response: ServerResponse): Promise<ApiError | undefined> {
    const verdict = await this.limits.countRequest(tracker);
    for (const [name, value] of Object.entries(verdict.headers)) response.setHeader(name, value);
    return verdict.refusal;
  }
}
