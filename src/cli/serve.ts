import { INestApplication } from '@nestjs/common';
import { createApp, migrate, startBackgroundWork } from '../app.setup.js';
import { GracefulShutdown } from '../http/graceful-shutdown.js';
import { AppConfig } from '../config/app-config.js';
import { ApiKeyService } from '../merchants/api-key.service.js';
import { DEMO_MERCHANT_ID } from '../merchants/merchant-id.js';

export interface ServeOptions {
  migrate: boolean;
  /** Runs after migrations, before the port opens (the quick start seeds here). */
  beforeListen?: (app: INestApplication) => Promise<void>;
}

/** Builds the app, migrates, listens; returns the app and the URL it serves at. */
export async function serve(
  config: AppConfig,
  options: ServeOptions,
): Promise<{ app: INestApplication; url: string }> {
  const app = await createApp(config);
  app.get(GracefulShutdown).onSignals(app);
  if (options.migrate) await migrate(app);
  await options.beforeListen?.(app);
  await refuseUnsafeProduction(app, config);
  startBackgroundWork(app);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return { app, url: `http://${host}:${port}${config.contextPath}` };
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
      `NODE_ENV=production refuses to start while the demo merchant "${DEMO_MERCHANT_ID}" has an active API key; revoke it first`,
    );
  }
  // The published key is no secret, whichever merchant a seed file gave it to.
  if (await keys.publishedKeyActive()) {
    await app.close();
    throw new Error(
      'NODE_ENV=production refuses to start while the published sandbox API key is active on a merchant; revoke it first',
    );
  }
}
