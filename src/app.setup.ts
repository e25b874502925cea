import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { AppModule, AppModuleOptions } from './app.module.js';
import { ErrorsFilter } from './http/errors.filter.js';
import { RouteTable } from './http/route-table.js';
import { createValidationPipe } from './common/validation.js';
import { AppConfig } from './config/app-config.js';
import { answerUnmatchedRoutes, createPlatformApp } from './http/platform.js';
import { setupSwagger } from './http/swagger.js';

/**
 * Builds the application exactly as it serves: used by main.ts, the quick start and the e2e
 * tests, so the tests exercise the real pipeline.
 */
export async function createApp(
  config: AppConfig,
  options: AppModuleOptions = {},
): Promise<INestApplication> {
  const app = await createPlatformApp(
    AppModule.forRoot(config, options),
    config.httpPlatform,
    config.contextPath,
  );
  app.useLogger(app.get(Logger));
  setupApp(app, config);
  await app.init();
  answerUnmatchedRoutes(app, config.httpPlatform);
  return app;
}

/** Applies prefix, validation, the error filter and Swagger to an application. */
export function setupApp(app: INestApplication, config: AppConfig): void {
  if (config.contextPath) app.setGlobalPrefix(config.contextPath);
  app.useGlobalPipes(createValidationPipe());
  const routes = new RouteTable(config.contextPath);
  app.useGlobalFilters(new ErrorsFilter(app.get(HttpAdapterHost), routes));
  const document = setupSwagger(app, config);
  routes.load(document);
}

/** Runs pending migrations on the application's data source. */
export async function migrate(app: INestApplication): Promise<void> {
  await app.get(DataSource).runMigrations({ transaction: 'each' });
}
