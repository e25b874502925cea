import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { OperatorAuthenticator } from '../http/ports.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The operator's bearer token, ADMIN_TOKEN. With none configured the operator API is closed.
 * Tokens are compared as SHA-256 digests in constant time, so neither the content nor the length
 * of the token leaks through timing.
 */
@Injectable()
export class OperatorToken extends OperatorAuthenticator {
  private readonly expected: Buffer | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super();
    this.expected = config.adminToken === undefined ? undefined : digest(config.adminToken);
  }

  /** Undefined when the Authorization header opens the operator API, else the refusal. */
  refusal(authorization: string | undefined): ApiError | undefined {
    if (!this.expected) {
      return new ApiError('FORBIDDEN', {
        message: 'The operator API is disabled: no ADMIN_TOKEN is configured.',
      });
    }
    const match = /^Bearer (.+)$/i.exec(authorization ?? '');
    if (!match) {
      return new ApiError('UNAUTHORIZED', {
        message: 'The operator API needs "Authorization: Bearer <ADMIN_TOKEN>".',
        field: 'authorization',
      });
    }
    if (!timingSafeEqual(digest(match[1]), this.expected)) {
      return new ApiError('FORBIDDEN', { message: 'This token does not open the operator API.' });
    }
    return undefined;
  }
}
