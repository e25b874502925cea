import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { FixedWindowStorage } from './fixed-window-storage.js';
import { OperatorToken } from './operator-token.js';
import { RateLimitStore } from './rate-limit-store.js';
import { RateLimits } from './rate-limits.js';
import { RedisRateLimitStore } from './redis-rate-limit-store.js';

/** Who may call (API keys, the operator token) and how often (rate limits). */
@Global()
@Module({
  imports: [MerchantsModule],
  providers: [
    {
      provide: RateLimitStore,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.redisUrl
          ? new RedisRateLimitStore(config.redisUrl, config.redisKeyPrefix)
          : new FixedWindowStorage(),
    },
    RateLimits,
    OperatorToken,
  ],
  exports: [RateLimits, OperatorToken, MerchantsModule],
})
export class AuthModule {}
