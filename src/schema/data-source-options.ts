import { DataSourceOptions } from 'typeorm';
import { Callback, CallbackAttempt } from '../callbacks/callback.entity.js';
import { CatalogRevision, CryptoPair } from '../catalog/crypto-pair.entity.js';
import {
  PaymentSession,
  PaymentSessionTransition,
} from '../payment-status/payment-session.entity.js';
import { ApiKey, Merchant } from '../merchants/merchant.entity.js';
import { AuditEventRow } from '../audit/audit-event.entity.js';
import { Operator } from '../operators/operator.entity.js';
import { connectionOptions } from '../database/dialect.js';
import type { SqliteConnection } from '../database/sqlite-connection.js';
import { InitialSchema1763700000000 } from './migrations/1763700000000-initial-schema.js';
import { MerchantsAndKeys1763800000000 } from './migrations/1763800000000-merchants-and-keys.js';
import { ApiKeyLast41763900000000 } from './migrations/1763900000000-api-key-last4.js';
import { Callbacks1764000000000 } from './migrations/1764000000000-callbacks.js';
import { OperatorsAndAudit1764100000000 } from './migrations/1764100000000-operators-and-audit.js';
import { WriteProbe1764110000000 } from './migrations/1764110000000-write-probe.js';
import { KeyedAuditChain1764200000000 } from './migrations/1764200000000-keyed-audit-chain.js';
import { OperatorNames1764300000000 } from './migrations/1764300000000-operator-names.js';
import { PersonalDataHeld1764400000000 } from './migrations/1764400000000-personal-data-held.js';
import { Checkout1764500000000 } from './migrations/1764500000000-checkout.js';
import { MaskedDestinationAccounts1764600000000 } from './migrations/1764600000000-masked-destination-accounts.js';
import { AuditSequence1764700000000 } from './migrations/1764700000000-audit-sequence.js';
import { PairSettlement1764800000000 } from './migrations/1764800000000-pair-settlement.js';
import { Deposits1764810000000 } from './migrations/1764810000000-deposits.js';
import { Checkout, CheckoutToken } from '../checkout/checkout.entity.js';
import {
  AssetRate,
  Deposit,
  DepositAddress,
  DepositKey,
  DepositQuote,
} from '../deposits/deposits.entity.js';

export const ENTITIES = [
  CryptoPair,
  CatalogRevision,
  PaymentSession,
  PaymentSessionTransition,
  Merchant,
  ApiKey,
  Callback,
  CallbackAttempt,
  Operator,
  AuditEventRow,
  Checkout,
  CheckoutToken,
  DepositKey,
  DepositAddress,
  DepositQuote,
  Deposit,
  AssetRate,
];
export const MIGRATIONS = [
  InitialSchema1763700000000,
  MerchantsAndKeys1763800000000,
  ApiKeyLast41763900000000,
  Callbacks1764000000000,
  OperatorsAndAudit1764100000000,
  WriteProbe1764110000000,
  KeyedAuditChain1764200000000,
  OperatorNames1764300000000,
  PersonalDataHeld1764400000000,
  Checkout1764500000000,
  MaskedDestinationAccounts1764600000000,
  AuditSequence1764700000000,
  PairSettlement1764800000000,
  Deposits1764810000000,
];

/**
 * Data source options shared by the application, the seed script and ormconfig.ts. Migrations
 * are listed as classes (not globs) so the same list works from `src` under ts-jest and from `dist`.
 */
export function dataSourceOptions(
  databaseUrl: string,
  poolSize = 10,
  sqlite?: SqliteConnection,
): DataSourceOptions {
  return {
    ...connectionOptions(databaseUrl, poolSize, sqlite),
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    logging: false,
  } as DataSourceOptions;
}
