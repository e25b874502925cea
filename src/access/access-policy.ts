import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../common/errors/api-error.js';
import { headerValue } from '../common/http/headers.js';
import { andThen, type MaybePromise } from '../common/maybe-async.js';
import { ServiceState } from '../common/service-state.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { GeneralRateLimit } from '../rate-limits/general-rate-limit.js';
import { MAX_API_KEY_LENGTH } from './api-key.js';
import { attachCaller } from './caller.js';
import { attachOperatorCall } from './operator-call.js';
import type { DeclaredAccess } from './declared-access.js';
import { requestIdOf } from '../logging/logging.js';
import {
  KeyResolver,
  OperatorTokens,
  RefusalRecorder,
  type OperatorRefusal,
} from './access-ports.js';
import { closeAfter } from '../common/http/response.js';

/**
 * Who may call, by the access a route declares (or, for a request no route serves, the access of
 * its area): `api-version` first on every request; then for merchants the general rate limit and
 * the API key, for operators the bearer token and the role. A caller without valid credentials is
 * counted per address before being refused, so guessing keys or tokens is limited too; an operator
 * with a working token is not limited. Every refused operator request goes to the audit trail
 * (which records a caller's first refusals one by one and counts the rest).
 * Throws the refusal; answers at once when the key and the counters are in memory (the usual
 * case), else once the database or Redis has.
 */
@Injectable()
export class AccessPolicy {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly state: ServiceState,
    private readonly keys: KeyResolver,
    private readonly operators: OperatorTokens,
    private readonly limit: GeneralRateLimit,
    private readonly refusals: RefusalRecorder,
  ) {}

  /**
   * `address` is the client's, as the platform gives it (`ip:<address>`: the connection's peer,
   * or past the trusted proxies): what a caller without credentials is counted by.
   */
  admit(
    request: IncomingMessage,
    response: ServerResponse,
    declared: DeclaredAccess,
    address: string,
    target: string | null = null,
  ): MaybePromise<void> {
    // RFC 9112: a request of HTTP/1.1 without Host, and any request with more than
    // one Host line or a Host that is not a host and port, is a 400; the connection closes, as
    // after any request whose head could not be read.
    const host = hostRefusal(request);
    if (host !== undefined) {
      closeAfter(response);
      throw new ApiError('MALFORMED_REQUEST', { message: host, field: 'host' });
    }
    const version = headerValue(request.headers, 'api-version', 'x-api-version');
    if (version !== undefined && version.trim() !== '1') {
      throw new ApiError('UNSUPPORTED_API_VERSION', { field: 'api-version' });
    }
    // A public route that uses the database is refused like the others while its file is gone.
    if (declared.access === 'public' && !declared.usesDatabase) return;
    if (this.state.databaseLost) throw databaseLost();
    if (declared.access === 'public') return;

    if (declared.access === 'operator') {
      if (authorizationHeaders(request) > 1) throw repeatedAuthorization();
      const authorization = headerValue(request.headers, 'authorization');
      return andThen(this.operators.admit(authorization, declared.role ?? 'viewer'), (result) => {
        if ('error' in result)
          return this.refuseOperator(request, response, declared, address, target, result);
        attachOperatorCall(request, {
          operator: result,
          action: declared.action,
          requestId: requestIdOf(request),
          status: declared.status,
        });
      });
    }

    if (this.config.authMode === 'none') {
      attachCaller(request, { tracker: address });
      return this.count(address, response);
    }
    const key = headerValue(request.headers, 'key', 'x-api-key');
    const resolved =
      key !== undefined && key.length > 0 && key.length <= MAX_API_KEY_LENGTH
        ? this.keys.resolve(key)
        : undefined;
    return andThen(resolved, (found) => {
      const tracker = found ? `key:${found.keyId}` : address;
      return andThen(this.count(tracker, response), () => {
        if (!found) throw new ApiError('UNAUTHORIZED', { field: 'key' });
        attachCaller(request, { merchantId: found.merchantId, tracker });
      });
    });
  }

  /** Counts the refused caller by address, records the refusal, throws it (or the 429). */
  private async refuseOperator(
    request: IncomingMessage,
    response: ServerResponse,
    declared: DeclaredAccess,
    address: string,
    target: string | null,
    refusal: OperatorRefusal,
  ): Promise<never> {
    let error = refusal.error;
    try {
      await this.count(address, response);
    } catch (limited) {
      if (!(limited instanceof ApiError)) throw limited;
      error = limited;
    }
    await this.refusals.refused({
      operator: refusal.operator,
      reason: refusal.reason,
      action: declared.action,
      target,
      outcome: error.status,
      requestId: requestIdOf(request),
      address,
    });
    throw error;
  }

  /** Counts the request, sets the limit's headers, throws the refusal past the limit. */
  private count(tracker: string, response: ServerResponse): MaybePromise<void> {
    return andThen(this.limit.countRequest(tracker), ({ headers, refusal }) => {
      for (const name in headers) response.setHeader(name, headers[name]);
      if (refusal) throw refusal;
    });
  }
}

/**
 * How many lines of the header `name` (lower case) the request carries. Node keeps only the first
 * of repeated `Authorization` or `Host` lines in `headers`; `rawHeaders` has them all.
 */
function headerLines(request: IncomingMessage, name: string): number {
  let count = 0;
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if (request.rawHeaders[i].toLowerCase() === name) count++;
  }
  return count;
}

function authorizationHeaders(request: IncomingMessage): number {
  return headerLines(request, 'authorization');
}

/**
 * A Host value as RFC 9110 allows it: `uri-host [ ":" port ]`, the host an IP
 * literal in brackets or a registered name (RFC 3986 `reg-name`, empty included), the port digits.
 */
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::[0-9]*)?$/;

/** Why the request's Host header makes it a 400 (RFC 9112), or undefined. */
function hostRefusal(request: IncomingMessage): string | undefined {
  const host = request.headers.host;
  if (host === undefined) {
    return request.httpVersion === '1.1' ? 'An HTTP/1.1 request needs a Host header.' : undefined;
  }
  if (headerLines(request, 'host') > 1) return 'A request may carry one Host header, not several.';
  return HOST_VALUE.test(host) ? undefined : 'The Host header must be a host and port.';
}

/** Two credentials in one request: RFC 6750's `invalid_request`. */
function repeatedAuthorization(): ApiError {
  return new ApiError('INVALID_PARAMETER', {
    message: 'must be given once: the request carries more than one Authorization header.',
    field: 'authorization',
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_request"' },
  });
}

function databaseLost(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', {
    message: 'The database file is gone; this instance cannot serve until it is restarted.',
  });
}
