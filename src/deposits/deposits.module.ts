import { Module } from '@nestjs/common';
import { MerchantsModule } from '../merchants/merchants.module.js';
import { DepositGapMetric } from './deposit-gap-metric.js';
import { DepositLists } from './deposit-lists.js';
import { SandboxDeposits } from './sandbox-deposits.js';
import { DepositsController } from './deposits.controller.js';
import { DepositService } from './deposits.service.js';
import { PaidSessionReports } from './paid-session-reports.js';
import { QuoteRenewal } from './quote-renewal.js';
import { PaymentStatusModule } from '../payment-status/payment-status.module.js';
import { DepositKeysController } from './deposit-keys.controller.js';
import { DepositKeyRepository } from './deposit-keys.repository.js';
import { DepositKeyService } from './deposit-keys.service.js';
import { TypeOrmDepositKeyRepository } from './typeorm-deposit-keys.repository.js';
import { RatesController } from './rates.controller.js';
import { RateRepository } from './rates.repository.js';
import { RateService } from './rates.service.js';
import { TypeOrmRateRepository } from './typeorm-rates.repository.js';
import { CheckoutPayments } from './checkout-payments.service.js';
import { DepositRepository } from './deposits.repository.js';
import { TypeOrmDepositRepository } from './typeorm-deposits.repository.js';

/**
 * Paying a checkout on chain (docs/operators.md, "Deposits"): merchants' watch-only keys, rates
 * and quotes, deposit addresses, and the deposits watchers report. The checkout page asks it for
 * its payment instructions.
 */
@Module({
  imports: [MerchantsModule, PaymentStatusModule],
  controllers: [DepositKeysController, RatesController, DepositsController],
  providers: [
    DepositKeyService,
    { provide: DepositKeyRepository, useClass: TypeOrmDepositKeyRepository },
    RateService,
    { provide: RateRepository, useClass: TypeOrmRateRepository },
    CheckoutPayments,
    DepositService,
    DepositLists,
    SandboxDeposits,
    PaidSessionReports,
    QuoteRenewal,
    DepositGapMetric,
    { provide: DepositRepository, useClass: TypeOrmDepositRepository },
  ],
  exports: [
    DepositKeyService,
    RateService,
    CheckoutPayments,
    DepositService,
    PaidSessionReports,
    SandboxDeposits,
  ],
})
export class DepositsModule {}
