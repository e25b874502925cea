import { createCache } from 'cache-manager';
import { DataSource } from 'typeorm';
import { CatalogService } from '../../src/catalog/catalog.service.js';
import type { CryptoPairRepository } from '../../src/catalog/crypto-pair.repository.js';
import { boundedMemoryStore } from '../../src/common/cache/memory-store.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { AuditHeads } from '../../src/audit/audit-heads.js';
import { AuditTrail } from '../../src/audit/audit-trail.service.js';
import type { AuditKeyring } from '../../src/audit/audit-keys.js';
import type { AuditRepository } from '../../src/audit/audit.repository.js';
import type { ChangeFeed } from '../../src/database/change-feed.js';
import { DatabaseFiles } from '../../src/database/database-files.js';
import type { Transactions } from '../../src/database/transactions.js';
import type { CallbackOutbox } from '../../src/callbacks/callback-outbox.js';
import type { MerchantService } from '../../src/merchants/merchant.service.js';
import type { PaymentSessionRepository } from '../../src/payment-status/payment-session.repository.js';
import { PaymentSessionService } from '../../src/payment-status/payment-session.service.js';
import { PersonalDataHolders } from '../../src/payment-status/personal-data-holders.js';
import type { CacheLookups } from '../../src/metrics/cache-lookups.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import type { RateLimitRefusals } from '../../src/rate-limits/rate-limit-refusals.js';
import { testAuditKeyring } from './in-memory-audit.js';

/**
 * The ports a unit spec has no use for, bound to what does nothing: the services take every port
 * as a required dependency, so a spec passes these where the application binds the real ones.
 */

/** One process sees its own changes: there is nothing to announce and nothing to miss. */
export const SINGLE_PROCESS_FEED: ChangeFeed = {
  reliable: true,
  subscribe: () => undefined,
  announce: async () => undefined,
};

/** Cache lookups counted nowhere. */
export const UNCOUNTED_CACHE_LOOKUPS: CacheLookups = { cacheLookup: () => undefined };

/** Rate-limit refusals counted nowhere. */
export const UNCOUNTED_REFUSALS: RateLimitRefusals = { rateLimited: () => undefined };

/** A data source never connected: SQLite in memory, for the services that only ask its kind. */
function unconnectedSqlite(): DataSource {
  return new DataSource({ type: 'sqlite', database: ':memory:' });
}

/** The metrics of an application of its own (its registry is never scraped). */
export function testMetrics(): MetricsService {
  return new MetricsService(unconnectedSqlite());
}

/** What stays of erased data in the files, over transactions that run nothing outside one. */
export function testDatabaseFiles(transactions: Transactions): DatabaseFiles {
  return new DatabaseFiles(unconnectedSqlite(), transactions);
}

/** The audit trail over `events`, with its head publisher bound and never started. */
export function testAuditTrail(
  events: AuditRepository,
  transactions: Transactions,
  keyring: AuditKeyring = testAuditKeyring(),
): AuditTrail {
  return new AuditTrail(
    events,
    transactions,
    keyring,
    new AuditHeads(events, transactions, testMetrics()),
  );
}

/** The payment session service wired as its module wires it, with the no-op ports. */
export function testPaymentSessionService(
  sessions: PaymentSessionRepository,
  merchants: MerchantService,
  transactions: Transactions,
  outbox: CallbackOutbox,
  audit: AuditTrail,
  holders = new PersonalDataHolders(),
): PaymentSessionService {
  return new PaymentSessionService(
    sessions,
    merchants,
    transactions,
    outbox,
    audit,
    UNCOUNTED_CACHE_LOOKUPS,
    SINGLE_PROCESS_FEED,
    testDatabaseFiles(transactions),
    testMetrics(),
    holders,
  );
}

/** The catalog service with its own page cache (1 MB), wired as its module wires it. */
export function testCatalogService(
  pairs: CryptoPairRepository,
  transactions: Transactions,
  config: AppConfig,
  audit: AuditTrail,
): CatalogService {
  const cache = createCache({ stores: [boundedMemoryStore(1024 * 1024)] });
  return new CatalogService(pairs, transactions, cache, config, audit, UNCOUNTED_CACHE_LOOKUPS);
}
