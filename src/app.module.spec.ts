import { Logger, type LoggerService } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { loadConfig } from './config/app-config.js';

describe('AppModule', () => {
  const warnings: unknown[] = [];
  const collecting: LoggerService = {
    log: () => undefined,
    error: (message: unknown) => warnings.push(message),
    warn: (message: unknown) => warnings.push(message),
  };
  beforeAll(() => Logger.overrideLogger(collecting));
  afterAll(() => Logger.overrideLogger(false));

  it('builds several applications in one process without a framework warning', () => {
    // The e2e tests run several applications in one process; each has its own data source,
    // which must not be reported as one registered twice under the same name.
    const config = loadConfig({});
    const modules = [AppModule.forRoot(config), AppModule.forRoot(config)];
    expect(modules).toHaveLength(2);
    expect(warnings).toEqual([]);
  });
});
