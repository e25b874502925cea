import { Global, Module } from '@nestjs/common';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { FixedWindowStorage } from './fixed-window-storage.js';
import { OperatorToken } from './operator-token.js';
import { RateLimitStore } from './rate-limit-store.js';
import { RateLimits } from './rate-limits.js';

/** Who may call (API keys, the operator token) and how often (rate limits). */
@Global()
@Module({
  imports: [MerchantsModule],
  providers: [{ provide: RateLimitStore, useClass: FixedWindowStorage }, RateLimits, OperatorToken],
  exports: [RateLimits, OperatorToken, MerchantsModule],
})
export class AuthModule {}
