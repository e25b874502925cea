import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { RateLimitRefusals } from '../rate-limits/rate-limit-refusals.js';
import { rateLimited } from '../rate-limits/general-rate-limit.js';
import { RateLimitStore } from '../rate-limits/rate-limit-store.js';

/** Refused checkout page requests allowed per address and window. */
export const CHECKOUT_REFUSALS_LIMIT = 30;
export const CHECKOUT_REFUSALS_WINDOW_SECONDS = 60;

/**
 * The checkout's pages need no key, so guessing tokens or nonces is limited by address: past
 * CHECKOUT_REFUSALS_LIMIT refused requests (unknown token, missing or spent nonce, an action on
 * an ended payment, ...) in the window, every checkout request from that address is refused
 * with 429 until the window ends. Counted in the rate limits' store (shared through Redis).
 */
@Injectable()
export class CheckoutRefusals {
  constructor(
    private readonly store: RateLimitStore,
    private readonly refusals: RateLimitRefusals,
  ) {}

  /** The 429 while the address is blocked; undefined when it is not. */
  async refusal(address: string): Promise<ApiError | undefined> {
    const seconds = await this.store.blockedFor(keyOf(address), 'checkout-refusals');
    if (seconds <= 0) return undefined;
    this.refusals.rateLimited('checkout_refusals');
    return rateLimited(seconds);
  }

  /** Counts a refusal: the error to answer, or the 429 when it goes over the limit. */
  async refused(address: string, error: ApiError): Promise<ApiError> {
    const windowMs = CHECKOUT_REFUSALS_WINDOW_SECONDS * 1000;
    const record = await this.store.increment(
      keyOf(address),
      windowMs,
      CHECKOUT_REFUSALS_LIMIT,
      windowMs,
      'checkout-refusals',
    );
    if (!record.isBlocked) return error;
    this.refusals.rateLimited('checkout_refusals');
    return rateLimited(record.timeToBlockExpire);
  }
}

function keyOf(address: string): string {
  return `checkout-refusals:${address}`;
}
