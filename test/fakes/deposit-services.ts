import type { AuditTrail } from '../../src/audit/audit-trail.service.js';
import type { AppConfig } from '../../src/config/app-config.js';
import type { Transactions } from '../../src/database/transactions.js';
import { CheckoutPayments } from '../../src/deposits/checkout-payments.service.js';
import { DepositKeyService } from '../../src/deposits/deposit-keys.service.js';
import { DepositService } from '../../src/deposits/deposits.service.js';
import { PaidSessionReports } from '../../src/deposits/paid-session-reports.js';
import type { PaymentSessionService } from '../../src/payment-status/payment-session.service.js';
import { QuoteRenewal } from '../../src/deposits/quote-renewal.js';
import { RateService } from '../../src/deposits/rates.service.js';
import { SandboxDeposits } from '../../src/deposits/sandbox-deposits.js';
import type { InMemoryDepositKeys, InMemoryDeposits, InMemoryRates } from './in-memory-deposits.js';
import type { InMemoryMerchants } from './in-memory-merchants.js';

/** The deposit services over in-memory stores, wired as the deposits module wires them. */
export function depositServices(
  config: AppConfig,
  stores: {
    keys: InMemoryDepositKeys;
    rates: InMemoryRates;
    deposits: InMemoryDeposits;
    merchants: InMemoryMerchants;
  },
  transactions: Transactions,
  audit: AuditTrail,
  sessions: PaymentSessionService,
) {
  const keys = new DepositKeyService(config, stores.keys, stores.merchants, transactions, audit);
  const rates = new RateService(config, stores.rates, transactions, audit);
  const renewal = new QuoteRenewal(config, rates);
  const payments = new CheckoutPayments(keys, rates, stores.deposits, renewal);
  const paidReports = new PaidSessionReports();
  const deposits = new DepositService(stores.deposits, keys, sessions, paidReports, renewal, audit);
  const sandboxDeposits = new SandboxDeposits(deposits);
  return { keys, rates, renewal, payments, deposits, paidReports, sandboxDeposits };
}
