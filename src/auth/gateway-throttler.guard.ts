import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { accessOf } from './access.js';
import { AuthRequest, RequestAuthenticator } from './request-authenticator.js';

/**
 * The general rate limit of @nestjs/throttler, counted per API key, or per address for callers
 * without a valid key, so guessing keys is limited like any other traffic from that address.
 */
@Injectable()
export class GatewayThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
  ) {
    super(options, storage, reflector);
  }

  /** Public routes (health) are never limited. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return accessOf(this.reflector, context) === 'public';
  }

  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    return this.authenticator.trackerOf(request as AuthRequest);
  }

  /** One budget per caller across all routes (the library's default is one per route). */
  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    throttlerName: string,
  ): string {
    return `${throttlerName}:${tracker}`;
  }
}
