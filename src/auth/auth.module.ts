import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { AdminGuard } from './admin.guard.js';
import { FixedWindowStorage } from './fixed-window-storage.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { GatewayThrottlerGuard } from './gateway-throttler.guard.js';
import { NotFoundLimiter } from './not-found-limiter.js';
import { RequestAuthenticator } from './request-authenticator.js';

/** The counters of this application: the general limit's and the 404 limit's. */
@Global()
@Module({ providers: [FixedWindowStorage], exports: [FixedWindowStorage] })
export class RateLimitStorageModule {}

@Global()
@Module({
  imports: [
    MerchantsModule,
    RateLimitStorageModule,
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, FixedWindowStorage],
      useFactory: (config: AppConfig, storage: FixedWindowStorage) => ({
        storage,
        throttlers: [
          {
            name: 'default',
            ttl: config.rateLimit.generalWindowSeconds * 1000,
            limit: config.rateLimit.generalLimit,
          },
        ],
      }),
    }),
  ],
  providers: [
    RequestAuthenticator,
    ApiKeyGuard,
    GatewayThrottlerGuard,
    AdminGuard,
    NotFoundLimiter,
  ],
  exports: [
    RequestAuthenticator,
    ApiKeyGuard,
    GatewayThrottlerGuard,
    AdminGuard,
    NotFoundLimiter,
    ThrottlerModule,
  ],
})
export class AuthModule {}
