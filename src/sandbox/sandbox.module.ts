import { Module } from '@nestjs/common';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { DemoShopController } from './demo-shop.controller.js';
import { DemoShop } from './demo-shop.service.js';
import { SandboxHome } from './sandbox-home.service.js';
import { SandboxPagesController } from './sandbox-pages.controller.js';
import { SandboxPages } from './sandbox-pages.js';

/**
 * The sandbox's own pages (CHECKOUT_SANDBOX=true only; see AppModule): the home page a newcomer
 * opens first, and the demo shop that runs the whole checkout in one browser window.
 */
@Module({
  imports: [MerchantsModule],
  controllers: [SandboxPagesController, DemoShopController],
  providers: [SandboxPages, SandboxHome, DemoShop],
})
export class SandboxModule {}
