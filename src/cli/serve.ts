import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createApp, migrate, startBackgroundWork } from '../app.setup.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { SANDBOX_AUDIT_KEY_FILE } from '../audit/audit-keys.js';
import { GracefulShutdown } from '../http/graceful-shutdown.js';
import { AppConfig, ConfigError } from '../config/app-config.js';
import { ApiKeyService } from '../merchants/api-key.service.js';
import { CallbackSecretService } from '../merchants/callback-secret.service.js';
import { DEMO_MERCHANT_ID } from '../merchants/merchant-id.js';

export interface ServeOptions {
  migrate: boolean;
  /** Runs after migrations, before the port opens (the quick start seeds here). */
  beforeListen?: (app: INestApplication) => Promise<void>;
  /**
   * Runs once the port is open, before the background work starts (the quick start prints its
   * banner here, so that no line of the jobs' log comes before it).
   */
  announce?: (app: INestApplication, url: string) => Promise<void>;
}

/** Where the service listens: the address and port, and who can reach it there. */
export interface Listening {
  host: string;
  port: number;
  reach: string;
}

/** Builds the app, migrates, listens; returns the app, the URL it serves at and where it listens. */
export async function serve(
  config: AppConfig,
  options: ServeOptions,
): Promise<{ app: INestApplication; url: string; listening: Listening }> {
  const app = await createApp(config);
  app.get(GracefulShutdown).onSignals(app);
  await refuseKeysThatCannotRead(app, config);
  if (options.migrate) await migrate(app);
  await options.beforeListen?.(app);
  await refuseUnsafeProduction(app, config);
  if (!options.announce) startBackgroundWork(app);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const everywhere = config.host === '0.0.0.0' || config.host === '::';
  const host = everywhere ? 'localhost' : config.host;
  const reach = everywhere
    ? 'every address of this machine'
    : isLoopback(config.host)
      ? 'this machine only'
      : `the address ${config.host}`;
  const url = `http://${host}:${port}${config.contextPath}`;
  if (options.announce) {
    await options.announce(app, url);
    startBackgroundWork(app);
  }
  return { app, url, listening: { host: config.host, port, reach } };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/**
 * NODE_ENV=production never serves an open sandbox, the demo merchant's keys or the published
 * sandbox key (on any merchant).
 */
async function refuseUnsafeProduction(app: INestApplication, config: AppConfig): Promise<void> {
  if (config.nodeEnv !== 'production') return;
  if (config.authMode === 'none') {
    await app.close();
    throw new Error('NODE_ENV=production refuses AUTH_MODE=none');
  }
  const keys = app.get(ApiKeyService);
  if (await keys.demoKeyActive()) {
    await app.close();
    throw new Error(
      `NODE_ENV=production refuses to start while the demo merchant "${DEMO_MERCHANT_ID}" has an active API key. ${REVOKE_HOW} GET /admin/merchants/${DEMO_MERCHANT_ID}/api-keys lists its keys, and DELETE /admin/merchants/${DEMO_MERCHANT_ID}/api-keys/<keyId> revokes each one without revokedAt`,
    );
  }
  // The published key is no secret, whichever merchant a seed file gave it to.
  const published = await keys.publishedKey();
  if (published) {
    await app.close();
    throw new Error(
      `NODE_ENV=production refuses to start while the published sandbox API key is active on the merchant "${published.merchantId}". ${REVOKE_HOW} DELETE /admin/merchants/${published.merchantId}/api-keys/${published.keyId} revokes it`,
    );
  }
}

/** How an operator revokes a key the production start refuses: the API, from a start that is not production. */
const REVOKE_HOW =
  'To revoke it, start once without NODE_ENV=production on the same DATABASE_URL, with an ADMIN_TOKEN (Authorization: Bearer <ADMIN_TOKEN>):';

/**
 * Keys that cannot read what the database holds are refused before anything is migrated or
 * served: a CALLBACK_SECRET_KEY that does not decrypt the merchants' stored callback secrets
 * (every callback would fail to be signed), and an AUDIT_KEY that is not the key of the audit
 * chain's latest event, nor among AUDIT_KEYS_PREVIOUS (every event appended would break the chain
 * for verify). Where the SQLite sandbox uses its key files, they are checked alike. Nothing is
 * checked on a database not migrated that far (a new one).
 */
async function refuseKeysThatCannotRead(app: INestApplication, config: AppConfig): Promise<void> {
  const runner = app.get(DataSource).createQueryRunner();
  const [secrets, chain] = await Promise.all([
    runner.hasColumn('merchant', 'callback_secret'),
    runner.hasColumn('audit_event', 'key_id'),
  ]).finally(() => runner.release());
  const sandboxFile = config.databaseUrl.startsWith('sqlite:');
  const problems: { variable: string; rule: string }[] = [];
  const merchant = secrets ? await app.get(CallbackSecretService).unreadableSecret() : undefined;
  if (merchant !== undefined) {
    problems.push({
      variable: 'CALLBACK_SECRET_KEY',
      rule:
        config.callbacks.secretKey === undefined && sandboxFile
          ? `is unset, and the key file callback-secret.key beside the database cannot read the callback secrets it holds (merchant "${merchant}"'s): set CALLBACK_SECRET_KEY to the key they were encrypted under`
          : `cannot read the callback secrets this database holds (merchant "${merchant}"'s does not decrypt under it): set it to the key they were encrypted under (a sandbox database's is in callback-secret.key beside it)`,
    });
  }
  const keyId = chain ? await app.get(AuditTrail).missingHeadKey() : undefined;
  if (keyId !== undefined) {
    problems.push({
      variable: 'AUDIT_KEY',
      rule:
        config.audit.key === undefined && sandboxFile
          ? `is unset, and the key file ${SANDBOX_AUDIT_KEY_FILE} beside the database is not the key of the audit chain's latest event (key id ${keyId}): set AUDIT_KEY to that key`
          : `is not the key of the audit chain's latest event (key id ${keyId}), nor is that key in AUDIT_KEYS_PREVIOUS: set AUDIT_KEY to it, or after a rotation keep it in AUDIT_KEYS_PREVIOUS`,
    });
  }
  if (problems.length === 0) return;
  await app.close();
  const [first, ...others] = problems;
  throw new ConfigError(first.variable, first.rule, others);
}
