import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { PaymentStatusModule } from '../payment-status/payment-status.module.js';
import { CallbacksModule } from '../callbacks/callbacks.module.js';
import { CheckoutModule } from '../checkout/checkout.module.js';
import { PaymentSessionViews } from './payment-session-views.js';
import { AdminCallbacksController } from './admin-callbacks.controller.js';
import { AdminCatalogController } from './admin-catalog.controller.js';
import { AdminMerchantsController } from './admin-merchants.controller.js';
import { AdminPaymentSessionsController } from './admin-payment-sessions.controller.js';

/** Operator routes; they reuse the feature services, so they obey the same rules. */
@Module({
  imports: [CatalogModule, PaymentStatusModule, MerchantsModule, CallbacksModule, CheckoutModule],
  providers: [PaymentSessionViews],
  controllers: [
    AdminCatalogController,
    AdminPaymentSessionsController,
    AdminMerchantsController,
    AdminCallbacksController,
  ],
})
export class AdminModule {}
