import { ConfigError, loadConfig } from './app-config.js';

/** The ConfigError thrown for this environment. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.contextPath).toBe('');
    expect(config.databaseUrl).toBe('sqlite:data/gateway.sqlite');
    expect(config.catalogCacheTtlSeconds).toBe(60);
    expect(config.authMode).toBe('api-key');
    expect(config.adminToken).toBeUndefined();
    expect(config.logLevel).toBe('info');
    expect(config.migrationsRun).toBe(true);
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ PORT: '', AUTH_MODE: ' ', DATABASE_URL: '', LOG_LEVEL: '' });
    expect(config.port).toBe(3000);
    expect(config.authMode).toBe('api-key');
    expect(config.databaseUrl).toBe('sqlite:data/gateway.sqlite');
    expect(config.logLevel).toBe('info');
  });

  it('reads valid values', () => {
    const token = 'a'.repeat(32);
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      CONTEXT_PATH: '/pegasus-ci',
      DATABASE_URL: 'sqlite::memory:',
      CATALOG_CACHE_TTL_SECONDS: '0',
      AUTH_MODE: 'none',
      ADMIN_TOKEN: token,
      LOG_LEVEL: 'debug',
      MIGRATIONS_RUN: 'false',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      contextPath: '/pegasus-ci',
      databaseUrl: 'sqlite::memory:',
      catalogCacheTtlSeconds: 0,
      authMode: 'none',
      adminToken: token,
      logLevel: 'debug',
      migrationsRun: false,
    });
  });

  it('does not read process.env when given an environment', () => {
    const saved = process.env.PORT;
    process.env.PORT = '4567';
    try {
      expect(loadConfig({}).port).toBe(3000);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it.each([
    ['pegasus-ci', '/pegasus-ci'],
    ['/pegasus-ci/', '/pegasus-ci'],
    ['/pegasus-ci', '/pegasus-ci'],
    ['pegasus-ci/', '/pegasus-ci'],
    ['/a/b', '/a/b'],
    ['/', ''],
    ['', ''],
  ])('normalises CONTEXT_PATH %j to %j', (raw, expected) => {
    expect(loadConfig({ CONTEXT_PATH: raw }).contextPath).toBe(expected);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['AUTH_MODE', 'open'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['CONTEXT_PATH', '/pegasus ci'],
    ['CONTEXT_PATH', 'with spaces/x'],
    ['CONTEXT_PATH', '/a?b'],
    ['MIGRATIONS_RUN', 'maybe'],
    ['CATALOG_CACHE_TTL_SECONDS', 'soon'],
    ['CATALOG_CACHE_TTL_SECONDS', '-5'],
    ['LOG_LEVEL', 'verbose'],
  ])('refuses %s=%j with a ConfigError naming the variable', (variable, value) => {
    const error = configError({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
    expect(error.message).not.toContain('\n');
    expect(error.rule.length).toBeGreaterThan(0);
    expect(error.message).toContain(error.rule);
  });

  it('states the rule of PORT in its message', () => {
    expect(configError({ PORT: '70000' }).message).toMatch(/PORT.*65535/);
  });

  it('refuses an ADMIN_TOKEN shorter than 32 characters without echoing it', () => {
    const token = 'short-admin-token-0123456789abc';
    expect(token).toHaveLength(31);
    const error = configError({ ADMIN_TOKEN: token });
    expect(error.variable).toBe('ADMIN_TOKEN');
    expect(error.message).toContain('ADMIN_TOKEN');
    expect(error.message).toContain('32');
    expect(error.message).not.toContain(token);
  });

  it('accepts an ADMIN_TOKEN of exactly 32 characters', () => {
    const token = 'x'.repeat(32);
    expect(loadConfig({ ADMIN_TOKEN: token }).adminToken).toBe(token);
  });

  it('accepts the boundary ports', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
  });
});
