import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { runMigrationsOnce } from './database/dialect.js';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module.js';
import { CallbackDispatcher } from './callbacks/callback-dispatcher.js';
import { ServiceState } from './common/service-state.js';
import { createValidationPipe } from './common/validation.js';
import { AppConfig } from './config/app-config.js';
import { Admission } from './http/admission.js';
import { ErrorsFilter } from './http/errors.filter.js';
import { GracefulShutdown } from './http/graceful-shutdown.js';
import { HttpPipeline } from './http/http-pipeline.js';
import { NestLogger, createLogger, routeTemplateOf } from './http/logging.js';
import { NotFoundAnswers } from './http/not-found.js';
import {
  PlatformHooks,
  answerUnmatchedRoutes,
  createPlatformApp,
  securityHeaders,
} from './http/platform.js';
import { RouteTable } from './http/route-table.js';
import { setupSwagger } from './http/swagger.js';
import { MetricsService } from './metrics/metrics.service.js';

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
  // The platform is created before the pipeline, which needs the application's services.
  const late: { pipeline?: HttpPipeline; notFound?: NotFoundAnswers } = {};
  const hooks: PlatformHooks = {
    clientError: (error, socket) => late.pipeline?.onClientError(error, socket) ?? socket.destroy(),
    undecodableUrl: (request) => late.notFound!.errorFor(request),
  };
  const app = await createPlatformApp(AppModule.forRoot(config), config.httpPlatform, hooks);
  app.useLogger(new NestLogger(logger));
  late.notFound = app.get(NotFoundAnswers);
  const metrics = app.get(MetricsService);
  const pipeline = new HttpPipeline(app.getHttpServer(), {
    config,
    admission: app.get(Admission),
    logger,
    state: app.get(ServiceState),
    headers: securityHeaders(),
    observer: {
      requestCompleted: (request, response, seconds) =>
        metrics.recordRequest(
          request.method ?? 'GET',
          routeTemplateOf(request),
          response.statusCode,
          seconds,
        ),
    },
  });
  pipeline.install();
  late.pipeline = pipeline;
  app.get(GracefulShutdown).attach(pipeline, logger);
  setupApp(app, config);
  await app.init();
  answerUnmatchedRoutes(app, config.httpPlatform);
  return app;
}

/** Applies prefix, validation, the error filter and Swagger to an application. */
export function setupApp(app: INestApplication, config: AppConfig): void {
  if (config.contextPath) app.setGlobalPrefix(config.contextPath);
  app.useGlobalPipes(
    createValidationPipe({ remember: !config.layersOff.has('validation-memory') }),
  );
  app.useGlobalFilters(new ErrorsFilter(app.get(NotFoundAnswers)));
  const document = setupSwagger(app, config);
  app.get(RouteTable).load(document, config.contextPath);
}

/** Starts what works in the background (callback delivery): once the schema is in place. */
export function startBackgroundWork(app: INestApplication): void {
  app.get(CallbackDispatcher).start();
}

/** Runs pending migrations on the application's data source. */
export async function migrate(app: INestApplication): Promise<void> {
  await runMigrationsOnce(app.get(DataSource));
}
