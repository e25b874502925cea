import { CacheModule } from '@nestjs/cache-manager';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { boundedMemoryStore } from '../common/cache/memory-store.js';
import { ApiKey, Merchant } from './merchant.entity.js';
import { MerchantService } from './merchant.service.js';

/** Resolved keys kept at most. */
const API_KEY_CACHE_ENTRIES = 10000;

@Module({
  // A cache of its own: resolved keys, never mixed with catalog pages.
  imports: [
    TypeOrmModule.forFeature([Merchant, ApiKey]),
    CacheModule.register({ stores: [boundedMemoryStore(API_KEY_CACHE_ENTRIES)] }),
  ],
  providers: [MerchantService],
  exports: [MerchantService],
})
export class MerchantsModule {}
