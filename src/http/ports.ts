import type { ApiError } from '../common/errors/api-error.js';
import type { MaybePromise } from '../common/maybe-async.js';
import type { Caller } from '../access/caller.js';

/**
 * What the HTTP layer needs from the features, as small contracts they provide: it reads no
 * key, session or metric itself. The caller the access policy attached (`Caller`, the access
 * feature's type: src/access/caller.ts) is only passed on.
 */

/** A request that no route serves, as a feature that owns its path sees it. */
export interface UnservedRequest {
  method: string;
  /**
   * The template, below CONTEXT_PATH, of the route it reached: a catch-all route
   * (`/api/gateway/payment-status/*path`) or a route it spells otherwise.
   */
  route: string;
  /** Its caller, on paths that ask for a merchant's key. */
  caller?: Caller;
}

/** The answer to a request no route serves, for the paths a feature owns. */
export abstract class UnservedRequestPolicy {
  /** The error to answer with; undefined when the path is not the feature's. */
  abstract errorFor(request: UnservedRequest): MaybePromise<ApiError | undefined>;
}

/** Told of every answered request (the metrics). */
export abstract class RequestObserver {
  /**
   * `route` is the template of the route that served it, undefined when none did; `status` is
   * `aborted` when the connection closed before the answer was complete.
   */
  abstract requestCompleted(
    method: string,
    route: string | undefined,
    status: number | 'aborted',
    seconds: number,
  ): void;
}
