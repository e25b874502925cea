import { createHmac } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { sandboxKey } from '../common/key-file.js';
import { loadConfig, type AuditConfig } from '../config/app-config.js';
import { databaseFileOf } from '../database/dialect.js';

/** The file beside the SQLite sandbox's database that keeps its generated audit key. */
export const SANDBOX_AUDIT_KEY_FILE = 'audit.key';

/** A key of the audit chain and the id events record it by. */
export interface AuditKey {
  /** 16 hex digits derived from the key (see auditKeyId): says which key, reveals nothing of it. */
  id: string;
  key: Buffer;
}

/**
 * The id of an audit key: the first 16 hex digits of HMAC-SHA256(key, "audit-key-id"). Derived,
 * not configured, so a key can never be given under another key's id; one-way, so an id tells
 * nothing about its key.
 */
export function auditKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('audit-key-id').digest('hex').slice(0, 16);
}

/**
 * The keys of the audit chain: the current one, which makes every new link, and the previous
 * ones, kept only to verify the links they made before a rotation.
 */
export class AuditKeyring {
  readonly current: AuditKey;
  private readonly byId = new Map<string, Buffer>();

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    if (current.length !== 32) throw new Error('An audit key must be 32 bytes');
    this.current = { id: auditKeyId(current), key: current };
    for (const key of [current, ...previous]) this.byId.set(auditKeyId(key), key);
  }

  /** The key of this id, when this service holds it. */
  find(id: string): Buffer | undefined {
    return this.byId.get(id);
  }

  /** Ids of every key held, the current one first. */
  get ids(): string[] {
    return [...this.byId.keys()];
  }
}

/**
 * The keyring from the configuration: AUDIT_KEY (required in production and with PostgreSQL)
 * and AUDIT_KEYS_PREVIOUS; without AUDIT_KEY, the SQLite sandbox's generated key file beside its
 * database (`audit.key`), or for an in-memory database a key that lives as long as the process.
 */
export function auditKeyring(config: AuditConfig, sqliteFile: string | undefined): AuditKeyring {
  return new AuditKeyring(
    config.key ?? sandboxKey(sqliteFile, SANDBOX_AUDIT_KEY_FILE),
    config.previousKeys,
  );
}

/**
 * The keyring of each data source, so that a migration that appends to the chain uses the keys
 * of the application it runs for (an in-memory database's key exists nowhere else).
 */
const KEYRINGS = new WeakMap<DataSource, AuditKeyring>();

export function useAuditKeyring(dataSource: DataSource, keyring: AuditKeyring): AuditKeyring {
  KEYRINGS.set(dataSource, keyring);
  return keyring;
}

/**
 * The keyring the application registered for this data source; for a data source no application
 * built (the TypeORM CLI on ormconfig.ts), the one the environment configures, as the service
 * would read it.
 */
export function auditKeyringOf(dataSource: DataSource): AuditKeyring {
  return (
    KEYRINGS.get(dataSource) ??
    useAuditKeyring(dataSource, auditKeyring(loadConfig().audit, databaseFileOf(dataSource)))
  );
}
