import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { callerOf } from '../auth/current-caller.decorator.js';
import { RateLimits } from '../auth/rate-limits.js';
import { ApiError } from '../common/errors/api-error.js';
import { pathOf } from './http-pipeline.js';
import { RouteTable } from './route-table.js';

/**
 * The answer when no route serves a request. Below the status lookup's path a GET is a status
 * lookup that missed: the same 404 as an unknown key, counted by the same limit. A known path with
 * another method is a 405; anything else a 404.
 */
@Injectable()
export class NotFoundAnswers {
  constructor(
    private readonly routes: RouteTable,
    private readonly limits: RateLimits,
  ) {}

  async errorFor(request: IncomingMessage): Promise<ApiError> {
    const method = (request.method ?? 'GET').toUpperCase();
    const url = request.url ?? '/';
    const caller = callerOf(request);
    if ((method === 'GET' || method === 'HEAD') && pathOf(request)?.statusLookup && caller) {
      return (
        (await this.limits.statusLookupRefusal(caller.tracker)) ??
        (await this.limits.countMiss(caller.tracker)) ??
        new ApiError('TRANSACTION_FAILED', { field: 'validationKey' })
      );
    }
    const allowed = this.routes.methodsFor(url);
    if (allowed.length > 0) {
      return new ApiError('METHOD_NOT_ALLOWED', { headers: { Allow: allowed.join(', ') } });
    }
    return new ApiError('NOT_FOUND', { message: `No route ${method} ${printablePath(url)}.` });
  }
}

/** At most a short, printable path: the message never carries more than the route. */
function printablePath(url: string): string {
  const printable = url.split('?')[0].replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 100 ? `${printable.slice(0, 100)}…` : printable;
}
