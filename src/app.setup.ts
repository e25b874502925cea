import 'reflect-metadata';
import { INestApplication, RequestMethod } from '@nestjs/common';
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
import { NestLogger, createLogger, flushLogger } from './logging/logging.js';
import { NodeServer } from './http/node-server.js';
import { createPlatformApp } from './http/platform.js';
import { RequestContext } from './http/request-context.js';
import { RouteCatalog } from './http/routes.js';
import { DOCS_PATHS, setupSwagger } from './openapi/swagger.js';
import { rootOf } from './http/unserved.js';

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
  const app = await createPlatformApp(
    AppModule.forRoot(config, logger),
    { platform: config.httpPlatform, trustProxy: config.trustProxy },
    {
      clientError: (error, socket) =>
        late.server ? late.server.onClientError(error, socket) : socket.destroy(),
    },
    new NestLogger(logger),
  ).catch((error: unknown) => {
    // What Nest logged of the failure is written before the process reports it and exits.
    flushLogger(logger);
    throw error;
  });
  const server = (late.server = new NodeServer(app.getHttpServer(), logger));
  server.attach(config.http);
  app.get(GracefulShutdown).attach(server, logger);
  setupApp(app, config);
  await app.init();
  return app;
}

/**
 * What the module cannot declare: CONTEXT_PATH (the routes for paths no other route serves stay
 * at the host root, to answer those outside it), the request context as the application's
 * middleware (every request, routed or not, gets its id and its log line), the OpenAPI document
 * and docs page, and the route catalog read from the controllers.
 */
export function setupApp(app: INestApplication, config: AppConfig): void {
  const atRoot = [
    ...ROUTES_AT_HOST_ROOT,
    { path: rootOf(config.httpPlatform), method: RequestMethod.ALL },
  ];
  if (config.contextPath) {
    app.setGlobalPrefix(config.contextPath, {
      // Escaped: the exclusion is a pattern, and the root's route unescaped would match every route.
      exclude: atRoot.map((route) => ({ ...route, path: route.path.replace(/[{}*]/g, '\\$&') })),
    });
  }
  app.use(app.get(RequestContext).middleware);
  const document = setupSwagger(app, config);
  const words = Object.values(document.paths).flatMap((item) =>
    Object.values(item as Record<string, { parameters?: { in?: string; name: string }[] }>)
      .flatMap((operation) => operation?.parameters ?? [])
      .flatMap((parameter) => (parameter.in === 'query' ? [parameter.name] : [])),
  );
  app.get(RouteCatalog).readRoutes({
    contextPath: config.contextPath,
    atRoot: atRoot.map((route) => `/${route.path}`),
    others: [DOCS_PATHS.page, `${DOCS_PATHS.page}/:file`, DOCS_PATHS.document],
    words,
  });
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
