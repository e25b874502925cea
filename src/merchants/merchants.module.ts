import { CacheModule } from '@nestjs/cache-manager';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey, Merchant } from './merchant.entity.js';
import { MerchantService } from './merchant.service.js';

@Module({
  // A cache of its own: resolved keys, never mixed with catalog pages.
  imports: [TypeOrmModule.forFeature([Merchant, ApiKey]), CacheModule.register()],
  providers: [MerchantService],
  exports: [MerchantService],
})
export class MerchantsModule {}
