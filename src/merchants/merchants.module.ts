import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey, Merchant } from './merchant.entity.js';
import { MerchantRepository } from './merchant.repository.js';
import { MerchantService } from './merchant.service.js';
import { TypeOrmMerchantRepository } from './typeorm-merchant.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([Merchant, ApiKey])],
  providers: [
    MerchantService,
    { provide: MerchantRepository, useClass: TypeOrmMerchantRepository },
  ],
  exports: [MerchantService, MerchantRepository],
})
export class MerchantsModule {}
