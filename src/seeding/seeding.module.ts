import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { PaymentStatusModule } from '../payment-status/payment-status.module.js';
import { SeedRunner } from './seed-runner.js';

@Module({
  imports: [CatalogModule, MerchantsModule, PaymentStatusModule],
  providers: [SeedRunner],
  exports: [SeedRunner],
})
export class SeedingModule {}
