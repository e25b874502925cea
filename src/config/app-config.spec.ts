import {
  databaseKindOf,
  ConfigError,
  INTEGER_VARIABLES,
  IntegerVariable,
  loadConfig,
} from './app-config.js';

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

const SECRET_KEY = Buffer.alloc(32, 1).toString('base64');

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
    expect(config.shutdownTimeoutMs).toBe(10_000);
    expect(config.http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(config.rateLimit).toMatchObject({ generalLimit: 600, notFoundLimit: 30 });
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
    ['NODE_ENV', 'prod'],
    ['NODE_ENV', 'Production'],
    ['NODE_ENV', 'staging'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '1'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.1, proxy.example'],
    ['TRUST_PROXY', '10.0.0.0/8/8'],
    ['TRUST_PROXY', 'loopback,'],
  ])('refuses %s=%j with a ConfigError naming the variable', (variable, value) => {
    const error = configError({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
    expect(error.message).not.toContain('\n');
    expect(error.rule.length).toBeGreaterThan(0);
    expect(error.message).toContain(error.rule);
  });

  it('reads TRUST_PROXY as the proxies both platforms trust; none by default', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(
      loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,192.0.2.7, fd00::/8, ::1' }).trustProxy,
    ).toEqual(['loopback', '10.0.0.0/8', '192.0.2.7', 'fd00::/8', '::1']);
  });

  it('names every variable at fault at once, one line each, in the order they are read', () => {
    const error = configError({
      NODE_ENV: 'prod',
      PORT: 'abc',
      DATABASE_URL: 'mysql://root:s3cret@db/x',
      AUTH_MODE: 'open',
      TRUST_PROXY: 'true',
      CALLBACK_SECRET_KEY: 'not-a-key',
      CHECKOUT_TOKEN_TTL_SECONDS: '0',
      REQUEST_TIMEOUT_MS: '2000',
    });
    expect(error.problems.map((p) => p.variable)).toEqual([
      'NODE_ENV',
      'PORT',
      'DATABASE_URL',
      'AUTH_MODE',
      'TRUST_PROXY',
      'CALLBACK_SECRET_KEY',
      'CHECKOUT_TOKEN_TTL_SECONDS',
      'REQUEST_TIMEOUT_MS',
    ]);
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(8);
    for (const [i, line] of lines.entries()) {
      expect(line).toBe(
        `Invalid configuration: ${error.problems[i].variable} ${error.problems[i].rule}`,
      );
    }
    expect(error.message).not.toContain('s3cret');
    expect(error.message).not.toContain('not-a-key');
    expect([error.variable, error.rule]).toEqual([
      error.problems[0].variable,
      error.problems[0].rule,
    ]);
  });

  it('names a required key once, as missing or as broken, in production', () => {
    expect(
      configError({ NODE_ENV: 'production', AUDIT_KEY: 'short' })
        .problems.map((p) => p.variable)
        .sort(),
    ).toEqual(['AUDIT_KEY', 'CALLBACK_SECRET_KEY']);
  });

  it.each(['production', 'development', 'test'])('takes NODE_ENV=%s', (nodeEnv) => {
    const keys = { CALLBACK_SECRET_KEY: SECRET_KEY, AUDIT_KEY: SECRET_KEY };
    expect(loadConfig({ NODE_ENV: nodeEnv, ...keys }).nodeEnv).toBe(nodeEnv);
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

  it.each([
    '127.0.0.1',
    '0.0.0.0',
    '::',
    '::1',
    'fe80::1',
    'localhost',
    'api.example.com',
    'gw-1',
    '3com.net',
    `${'a'.repeat(63)}.example`,
  ])('accepts HOST=%j', (host) => {
    expect(loadConfig({ HOST: host }).host).toBe(host);
  });

  it.each([
    '999.1.1.1',
    '256.0.0.1',
    '1.2.3',
    '1.2.3.4.5',
    '[::1]',
    ':::1',
    'under_score.example',
    '-leading.example',
    'trailing-.example',
    'a..b',
    'host name',
    'http://localhost',
    'localhost:3000',
    'ünicode.example',
    `${'a'.repeat(64)}.example`,
    `${'abcdefg.'.repeat(32)}com`,
  ])('refuses HOST=%j with one line naming HOST and the rule', (host) => {
    const error = configError({ HOST: host });
    expect(error.variable).toBe('HOST');
    expect(error.message).toMatch(
      /^Invalid configuration: HOST must be an IPv4 or IPv6 address or a host name/,
    );
    expect(error.message).not.toContain('\n');
  });

  it('names the accepted DATABASE_URL forms for an unknown scheme, without echoing the URL', () => {
    const error = configError({ DATABASE_URL: 'mysql://root:s3cret-pass@db:3306/gateway' });
    expect(error.variable).toBe('DATABASE_URL');
    expect(error.message).toContain('sqlite:<path>');
    expect(error.message).toContain('sqlite::memory:');
    expect(error.message).toContain('"mysql:"');
    expect(error.message).not.toContain('s3cret-pass');
  });

  it.each(['postgres://user:pw@localhost:5432/db', 'postgresql://localhost/db'])(
    'accepts the PostgreSQL DATABASE_URL %j',
    (url) => {
      const config = loadConfig({
        DATABASE_URL: url,
        CALLBACK_SECRET_KEY: SECRET_KEY,
        AUDIT_KEY: SECRET_KEY,
      });
      expect(config.databaseUrl).toBe(url);
      expect(databaseKindOf(config.databaseUrl)).toBe('postgres');
    },
  );

  it.each(['postgres://', 'postgresql:///db', 'file.sqlite'])(
    'refuses DATABASE_URL=%j, naming the accepted forms',
    (url) => {
      const error = configError({ DATABASE_URL: url });
      expect(error.message).toMatch(/DATABASE_URL must be one of sqlite:<path>, sqlite::memory:/);
      expect(error.message).toContain('postgres://user:password@host:5432/database');
    },
  );

  it('expands the default callback retry schedule to every 2 h until 24 h after the first attempt', () => {
    const schedule = loadConfig({}).callbacks.retrySchedule;
    expect(schedule.slice(0, 7)).toEqual([5, 30, 120, 600, 1800, 3600, 7200]);
    const total = schedule.reduce((sum, d) => sum + d, 0);
    expect(total).toBeLessThanOrEqual(24 * 3600);
    expect(total + 7200).toBeGreaterThan(24 * 3600);
  });

  it('reads CALLBACK_RETRY_SCHEDULE as whole seconds, refusing anything else', () => {
    expect(loadConfig({ CALLBACK_RETRY_SCHEDULE: '1, 2,3' }).callbacks.retrySchedule).toEqual([
      1, 2, 3,
    ]);
    for (const bad of ['0', '1,,2', '1.5', 'x', '90000']) {
      expect(configError({ CALLBACK_RETRY_SCHEDULE: bad }).variable).toBe(
        'CALLBACK_RETRY_SCHEDULE',
      );
    }
  });

  it.each([[{ NODE_ENV: 'production' }], [{ DATABASE_URL: 'postgres://db.example/gateway' }]])(
    'requires CALLBACK_SECRET_KEY with %j',
    (env) => {
      expect(configError(env).variable).toBe('CALLBACK_SECRET_KEY');
      expect(
        loadConfig({ ...env, CALLBACK_SECRET_KEY: SECRET_KEY, AUDIT_KEY: SECRET_KEY }).callbacks
          .secretKey,
      ).toHaveLength(32);
    },
  );

  it.each([[{ NODE_ENV: 'production' }], [{ DATABASE_URL: 'postgres://db.example/gateway' }]])(
    'requires AUDIT_KEY with %j',
    (env) => {
      const error = configError({ ...env, CALLBACK_SECRET_KEY: SECRET_KEY });
      expect(error.variable).toBe('AUDIT_KEY');
      expect(error.message).toContain('the base64 of 32 bytes');
      const config = loadConfig({ ...env, CALLBACK_SECRET_KEY: SECRET_KEY, AUDIT_KEY: SECRET_KEY });
      expect(config.audit.key).toHaveLength(32);
    },
  );

  it('reads AUDIT_KEY and AUDIT_KEYS_PREVIOUS as keys of 32 bytes, never echoing them', () => {
    expect(loadConfig({}).audit).toEqual({ key: undefined, previousKeys: [] });
    const [a, b, c] = [1, 2, 3].map((n) => Buffer.alloc(32, n));
    const config = loadConfig({
      AUDIT_KEY: a.toString('base64'),
      AUDIT_KEYS_PREVIOUS: ` ${b.toString('base64')} ,${c.toString('base64')}`,
    });
    expect(config.audit).toEqual({ key: a, previousKeys: [b, c] });
    const short = Buffer.alloc(16, 7).toString('base64');
    for (const [variable, value] of [
      ['AUDIT_KEY', short],
      ['AUDIT_KEYS_PREVIOUS', `${b.toString('base64')},${short}`],
      ['AUDIT_KEYS_PREVIOUS', `${b.toString('base64')},`],
      ['AUDIT_KEYS_PREVIOUS', Array(17).fill(b.toString('base64')).join(',')],
    ]) {
      const error = configError({ [variable]: value });
      expect(error.variable).toBe(variable);
      expect(error.message).not.toContain(short);
      expect(error.message).not.toContain(b.toString('base64'));
    }
  });

  it('reads CALLBACK_SECRET_KEY as 32 bytes of base64 and never echoes it', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ CALLBACK_SECRET_KEY: key }).callbacks.secretKey).toEqual(
      Buffer.alloc(32, 7),
    );
    const error = configError({ CALLBACK_SECRET_KEY: Buffer.alloc(16, 7).toString('base64') });
    expect(error.variable).toBe('CALLBACK_SECRET_KEY');
    expect(error.message).not.toContain(Buffer.alloc(16, 7).toString('base64'));
  });

  it('reads REDIS_URL, refusing other schemes without echoing the URL', () => {
    expect(loadConfig({}).redisUrl).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl).toBe(
      'redis://127.0.0.1:6379',
    );
    const error = configError({ REDIS_URL: 'http://user:s3cret@redis:6379' });
    expect(error.variable).toBe('REDIS_URL');
    expect(error.message).not.toContain('s3cret');
  });

  it('accepts the sqlite forms of DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.sqlite' }).databaseUrl).toBe(
      'sqlite:/tmp/x.sqlite',
    );
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).databaseUrl).toBe('sqlite::memory:');
  });

  it('keeps the checkout sandbox off by default and refuses it in production', () => {
    expect(loadConfig({}).checkout).toEqual({
      tokenTtlSeconds: 1800,
      sandbox: false,
      expirySweepSeconds: 10,
    });
    expect(loadConfig({ CHECKOUT_SANDBOX: 'true' }).checkout.sandbox).toBe(true);
    const refused = configError({
      NODE_ENV: 'production',
      CHECKOUT_SANDBOX: 'true',
      CALLBACK_SECRET_KEY: SECRET_KEY,
    });
    expect(refused.variable).toBe('CHECKOUT_SANDBOX');
    expect(refused.message).toMatch(/NODE_ENV=production/);
    expect(configError({ CHECKOUT_SANDBOX: 'yes' }).variable).toBe('CHECKOUT_SANDBOX');
  });

  it('documents these defaults and limits for the time limits', () => {
    expect(INTEGER_VARIABLES).toMatchObject({
      SHUTDOWN_TIMEOUT_MS: { default: 10_000, min: 1_000, max: 120_000 },
      HEADERS_TIMEOUT_MS: { default: 10_000, min: 1_000, max: 120_000 },
      REQUEST_TIMEOUT_MS: { default: 30_000, min: 1_000, max: 600_000 },
      KEEP_ALIVE_TIMEOUT_MS: { default: 5_000, min: 1_000, max: 120_000 },
    });
  });

  /** Where each integer variable lands in the AppConfig. */
  const integerValue: Record<IntegerVariable, (env: Record<string, string>) => number> = {
    PORT: (env) => loadConfig(env).port,
    CATALOG_CACHE_TTL_SECONDS: (env) => loadConfig(env).catalogCacheTtlSeconds,
    RATE_LIMIT_PER_MINUTE: (env) => loadConfig(env).rateLimit.generalLimit,
    RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: (env) => loadConfig(env).rateLimit.notFoundLimit,
    SHUTDOWN_TIMEOUT_MS: (env) => loadConfig(env).shutdownTimeoutMs,
    // The request limit must not be below the headers limit: keep it out of the way.
    HEADERS_TIMEOUT_MS: (env) =>
      loadConfig({ REQUEST_TIMEOUT_MS: '600000', ...env }).http.headersTimeoutMs,
    REQUEST_TIMEOUT_MS: (env) =>
      loadConfig({ HEADERS_TIMEOUT_MS: '1000', ...env }).http.requestTimeoutMs,
    KEEP_ALIVE_TIMEOUT_MS: (env) => loadConfig(env).http.keepAliveTimeoutMs,
    DATABASE_POOL_SIZE: (env) => loadConfig(env).databasePoolSize,
    CALLBACK_TIMEOUT_MS: (env) => loadConfig(env).callbacks.timeoutMs,
    PERSONAL_DATA_RETENTION_DAYS: (env) => loadConfig(env).personalData.retentionDays,
    PERSONAL_DATA_SWEEP_SECONDS: (env) => loadConfig(env).personalData.sweepSeconds,
    CHECKOUT_TOKEN_TTL_SECONDS: (env) => loadConfig(env).checkout.tokenTtlSeconds,
    CHECKOUT_EXPIRY_SWEEP_SECONDS: (env) => loadConfig(env).checkout.expirySweepSeconds,
    RATE_MAX_AGE_SECONDS: (env) => loadConfig(env).deposits.rateMaxAgeSeconds,
    QUOTE_TTL_SECONDS: (env) => loadConfig(env).deposits.quoteTtlSeconds,
    LATE_DEPOSIT_WATCH_SECONDS: (env) => loadConfig(env).deposits.lateDepositWatchSeconds,
  };

  describe.each(
    Object.entries(INTEGER_VARIABLES) as [
      IntegerVariable,
      { default: number; min: number; max: number },
    ][],
  )('%s', (variable, rule) => {
    const value = integerValue[variable];

    it('has its default when unset, and accepts both limits', () => {
      expect(value({})).toBe(rule.default);
      expect(value({ [variable]: String(rule.min) })).toBe(rule.min);
      expect(value({ [variable]: String(rule.max) })).toBe(rule.max);
    });

    it.each([
      ['below the minimum', (r: typeof rule) => String(r.min - 1)],
      ['above the maximum', (r: typeof rule) => String(r.max + 1)],
      ['not a number', () => 'ten'],
      ['a decimal', (r: typeof rule) => `${r.min}.5`],
      ['far too large', () => '9'.repeat(400)],
    ])('is refused %s, with a message stating the limits', (_what, make) => {
      const raw = make(rule);
      const error = configError({ [variable]: raw });
      expect(error.variable).toBe(variable);
      expect(error.rule).toContain(`from ${rule.min} to ${rule.max}`);
      expect(error.message).not.toContain('\n');
    });
  });

  it('refuses a REQUEST_TIMEOUT_MS below HEADERS_TIMEOUT_MS, accepts an equal one', () => {
    const error = configError({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '15000' });
    expect(error.variable).toBe('REQUEST_TIMEOUT_MS');
    expect(error.message).toContain('HEADERS_TIMEOUT_MS');
    expect(
      loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '20000' }).http,
    ).toMatchObject({ headersTimeoutMs: 20_000, requestTimeoutMs: 20_000 });
    // The default request limit (30 s) is below a headers limit of 60 s: refused, not adjusted.
    expect(configError({ HEADERS_TIMEOUT_MS: '60000' }).variable).toBe('REQUEST_TIMEOUT_MS');
  });

  it('keeps the error on one line whatever the value holds', () => {
    const envs: Record<string, string>[] = [
      { PORT: '80\n81' },
      { HOST: 'a\nb' },
      { LOG_LEVEL: 'info\nx' },
    ];
    for (const env of envs) {
      const error = configError(env);
      expect(error.message).not.toMatch(/[\n\r]/);
    }
  });
});
