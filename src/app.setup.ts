import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module.js';
import { AuditHeads } from './audit/audit-heads.js';
import { CheckoutExpiry } from './checkout/checkout-expiry.js';
import { ROUTES_AT_HOST_ROOT } from './checkout/widget.controller.js';
import { CallbackDispatcher } from './callbacks/callback-dispatcher.js';
import { PersonalDataRetention } from './payment-status/personal-data-retention.js';
import { AppConfig } from './config/app-config.js';
import { runMigrationsOnce } from './database/dialect.js';
import { GracefulShutdown } from './http/graceful-shutdown.js';
import { NestLogger, createLogger } from './http/logging.js';
import { NodeServer } from './http/node-server.js';
import { answerUnmatchedRoutes, createPlatformApp } from './http/platform.js';
import { RequestContext } from './http/request-context.js';
import { RouteTable } from './http/route-table.js';
import { DOCS_PATHS, setupSwagger } from './http/swagger.js';

export interface AppOptions {
  /** Where logs go; stdout when absent. */
  logStream?: DestinationStream;
}

/**
 * Builds the application exactly as it serves: used by main.ts, the quick start and the e2e
 * tests, so the tests exercise the real pipeline.
 */
export async function createApp(
  config: AppConfig,
  options: AppOptions = {},
): Promise<INestApplication> {
  const logger = createLogger(config, options.logStream);
  // The platform is created first; Node's server exists once it is.
  const late: { server?: NodeServer } = {};
  const app = await createPlatformApp(AppModule.forRoot(config, logger), config.httpPlatform, {
    clientError: (error, socket) =>
      late.server ? late.server.onClientError(error, socket) : socket.destroy(),
  });
  app.useLogger(new NestLogger(logger));
  const server = (late.server = new NodeServer(app.getHttpServer(), logger));
  server.attach(config.http);
  app.get(GracefulShutdown).attach(server, logger);
  setupApp(app, config);
  await app.init();
  answerUnmatchedRoutes(app, config.httpPlatform);
  return app;
}

/**
 * What the module cannot declare: CONTEXT_PATH, the request context as the first global
 * middleware (every request, routed or not, gets its id and its log line), and the OpenAPI
 * document, from which the route table is read.
 */
export function setupApp(app: INestApplication, config: AppConfig): void {
  if (config.contextPath) {
    app.setGlobalPrefix(config.contextPath, { exclude: ROUTES_AT_HOST_ROOT });
  }
  app.use(app.get(RequestContext).middleware);
  const document = setupSwagger(app, config);
  app.get(RouteTable).load(document, config.contextPath, DOCS_PATHS);
}

/**
 * Starts what works in the background (callback delivery, the retention of personal data, the
 * published head of the audit chain, the expiry of checkouts): once the schema is in place.
 */
export function startBackgroundWork(app: INestApplication): void {
  app.get(CallbackDispatcher).start();
  app.get(PersonalDataRetention).start();
  app.get(AuditHeads).start();
  app.get(CheckoutExpiry).start();
}

/** Runs pending migrations on the application's data source. */
export async function migrate(app: INestApplication): Promise<void> {
  await runMigrationsOnce(app.get(DataSource));
}
