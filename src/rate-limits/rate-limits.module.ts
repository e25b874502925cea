import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { FixedWindowStorage } from './fixed-window-storage.js';
import { GeneralRateLimit } from './general-rate-limit.js';
import { RateLimitStore } from './rate-limit-store.js';

/** The counters of every rate limit (this process's memory, or Redis) and the general limit. */
@Global()
@Module({
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
    GeneralRateLimit,
  ],
  exports: [RateLimitStore, GeneralRateLimit],
})
export class RateLimitsModule {}
