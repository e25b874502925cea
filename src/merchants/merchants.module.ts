import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey, Merchant } from './merchant.entity.js';
import { MerchantService } from './merchant.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Merchant, ApiKey])],
  providers: [MerchantService],
  exports: [MerchantService],
})
export class MerchantsModule {}
