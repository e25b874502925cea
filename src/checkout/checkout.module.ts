import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CatalogModule } from '../catalog/catalog.module.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DepositsModule } from '../deposits/deposits.module.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { PaymentStatusModule } from '../payment-status/payment-status.module.js';
import { AccountNumbers } from './account-numbers.js';
import { CheckoutExpiry } from './checkout-expiry.js';
import { CheckoutPageController } from './checkout-page.controller.js';
import { CheckoutPages } from './checkout-pages.js';
import { CheckoutRefusals } from './checkout-refusals.js';
import { CheckoutRepository } from './checkout.repository.js';
import { CheckoutService } from './checkout.service.js';
import { InitIframeController } from './init-iframe.controller.js';
import { TypeOrmCheckoutRepository } from './typeorm-checkout.repository.js';
import { WidgetController } from './widget.controller.js';

/** The checkout (docs/checkout.md): init-iframe, the widget, its page, the expiry job. */
@Module({
  imports: [PaymentStatusModule, MerchantsModule, CatalogModule, DepositsModule],
  controllers: [InitIframeController, WidgetController, CheckoutPageController],
  providers: [
    CheckoutService,
    CheckoutPages,
    CheckoutRefusals,
    CheckoutExpiry,
    { provide: CheckoutRepository, useClass: TypeOrmCheckoutRepository },
    {
      provide: AccountNumbers,
      inject: [APP_CONFIG, DataSource],
      useFactory: (config: AppConfig, dataSource: DataSource) =>
        AccountNumbers.of(config.callbacks.secretKey, dataSource),
    },
  ],
  exports: [CheckoutService, CheckoutExpiry, CheckoutPages],
})
export class CheckoutModule {}
