import type { ChangeFeed } from '../../src/database/change-feed.js';
import { InMemoryAuditEvents } from './in-memory-audit.js';
import { SINGLE_PROCESS_FEED, testAuditTrail } from './no-op-ports.js';
import { loadConfig } from '../../src/config/app-config.js';
import type { Transactions } from '../../src/database/transactions.js';
import { ApiKeyService } from '../../src/merchants/api-key.service.js';
import { CallbackSecretService } from '../../src/merchants/callback-secret.service.js';
import { MerchantService } from '../../src/merchants/merchant.service.js';
import type { InMemoryMerchants } from './in-memory-merchants.js';
import { testSecretBox } from './in-memory-transactions.js';

/** The three merchant services over one in-memory store, wired as the module wires them. */
export function merchantServices(
  store: InMemoryMerchants,
  transactions: Transactions,
  changes: ChangeFeed = SINGLE_PROCESS_FEED,
  box = testSecretBox(),
  audit = testAuditTrail(new InMemoryAuditEvents(), transactions),
) {
  const keys = new ApiKeyService(store, transactions, audit, changes);
  const secrets = new CallbackSecretService(store, transactions, box, audit, changes);
  const merchants = new MerchantService(store, transactions, secrets, keys, audit, loadConfig({}));
  return { merchants, keys, secrets };
}
