import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { GatewayThrottlerGuard } from './gateway-throttler.guard.js';
import { NotFoundLimiter } from './not-found-limiter.js';
import { RequestAuthenticator } from './request-authenticator.js';

@Global()
@Module({
  imports: [
    MerchantsModule,
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
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
