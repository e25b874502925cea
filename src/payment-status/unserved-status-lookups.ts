import { Injectable } from '@nestjs/common';
import type { ApiError } from '../common/errors/api-error.js';
import { UnservedRequestPolicy, type UnservedRequest } from '../http/ports.js';
import { PAYMENT_STATUS_PATH } from './payment-status.routes.js';
import { StatusLookupLimit } from './status-lookup-limit.js';

const STATUS_PATH = `/${PAYMENT_STATUS_PATH}`;

/**
 * A GET below the status lookup's path that no route serves (an odd spelling, an extra segment,
 * an empty or undecodable key: the lookup spelled otherwise, or the route for what no other
 * route serves below this path, in app.module.ts) is a status lookup that missed: the same 404 as an unknown key,
 * counted by the same limit.
 */
@Injectable()
export class UnservedStatusLookups extends UnservedRequestPolicy {
  constructor(private readonly limit: StatusLookupLimit) {
    super();
  }

  async errorFor({ method, route, caller }: UnservedRequest): Promise<ApiError | undefined> {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    if (!caller || (route !== STATUS_PATH && !route.startsWith(`${STATUS_PATH}/`)))
      return undefined;
    return (await this.limit.refusal(caller.tracker)) ?? (await this.limit.miss(caller.tracker));
  }
}
