import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { attachCaller } from '../auth/current-caller.decorator.js';
import { OperatorToken } from '../auth/operator-token.js';
import { RateLimits } from '../auth/rate-limits.js';
import { ApiError } from '../common/errors/api-error.js';
import { andThen, type MaybePromise } from '../common/maybe-async.js';
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

  /**
   * Undefined when the request may go on; else the refusal to answer with. Answered at once when
   * the key and the counters are in memory (the usual case), else once the database or Redis has.
   */
  refusal(
    request: IncomingMessage,
    response: ServerResponse,
    path: PathInfo,
  ): MaybePromise<ApiError | undefined> {
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
      return andThen(this.count(address, response), (limited) => limited ?? refusal);
    }

    if (this.config.authMode === 'none') {
      attachCaller(request, { tracker: address });
      return this.count(address, response);
    }
    const key = headerValue(request.headers, 'key', 'x-api-key');
    const resolved =
      key !== undefined && key.length > 0 && key.length <= MAX_API_KEY_LENGTH
        ? this.merchants.resolve(key)
        : undefined;
    return andThen(resolved, (found) => {
      const tracker = found ? `key:${found.keyId}` : address;
      return andThen(this.count(tracker, response), (limited) => {
        if (limited) return limited;
        if (!found) return new ApiError('UNAUTHORIZED', { field: 'key' });
        attachCaller(request, { merchantId: found.merchantId, tracker });
        return undefined;
      });
    });
  }

  private count(tracker: string, response: ServerResponse): MaybePromise<ApiError | undefined> {
    return andThen(this.limits.countRequest(tracker), (verdict) => {
      const { headers } = verdict;
      for (const name in headers) response.setHeader(name, headers[name]);
      return verdict.refusal;
    });
  }
}
