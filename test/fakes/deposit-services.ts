import type { AuditTrail } from '../../src/audit/audit-trail.service.js';
import type { AppConfig } from '../../src/config/app-config.js';
import type { Transactions } from '../../src/database/transactions.js';
import { CheckoutPayments } from '../../src/deposits/checkout-payments.service.js';
import { DepositKeyService } from '../../src/deposits/deposit-keys.service.js';
import { RateService } from '../../src/deposits/rates.service.js';
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
) {
  const keys = new DepositKeyService(config, stores.keys, stores.merchants, transactions, audit);
  const rates = new RateService(config, stores.rates, transactions, audit);
  const payments = new CheckoutPayments(config, keys, rates, stores.deposits);
  return { keys, rates, payments };
}
