import { AuditTrail } from '../../src/audit/audit-trail.service.js';
import type { ChangeFeed } from '../../src/database/change-feed.js';
import { InMemoryAuditEvents, testAuditKeyring } from './in-memory-audit.js';
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
  changes?: ChangeFeed,
  box = testSecretBox(),
  audit = new AuditTrail(new InMemoryAuditEvents(), transactions, testAuditKeyring()),
) {
  const keys = new ApiKeyService(store, transactions, audit, changes);
  const secrets = new CallbackSecretService(store, transactions, box, audit, changes);
  const merchants = new MerchantService(store, transactions, secrets, keys, audit);
  return { merchants, keys, secrets };
}
