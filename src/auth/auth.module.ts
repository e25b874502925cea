import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { FixedWindowStorage } from './fixed-window-storage.js';
import { OperatorToken } from './operator-token.js';
import { RateLimitStore } from './rate-limit-store.js';
import { RateLimits } from './rate-limits.js';

/** Who may call (API keys, the operator token) and how often (rate limits). */
@Global()
@Module({
  imports: [MerchantsModule],
  providers: [
    {
      provide: RateLimitStore,
      inject: [APP_CONFIG],
      // The Redis client and its storage are loaded only when a Redis is configured.
      useFactory: async (config: AppConfig) => {
        if (!config.redisUrl) return new FixedWindowStorage();
        const { RedisRateLimitStore } = await import('./redis-rate-limit-store.js');
        return new RedisRateLimitStore(config.redisUrl, config.redisKeyPrefix);
      },
    },
    RateLimits,
    OperatorToken,
  ],
  exports: [RateLimits, OperatorToken, MerchantsModule],
})
export class AuthModule {}
