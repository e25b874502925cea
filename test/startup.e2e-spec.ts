import { jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../src/cli/serve.js';
import { loadConfig } from '../src/config/app-config.js';
import { SANDBOX_API_KEY } from '../src/openapi/swagger.js';
import { PROCESS_TEST_TIMEOUT_MS, startMain } from './support/main-process.js';
import { http, TEST_CALLBACK_SECRET_KEY, TEST_AUDIT_KEY } from './support/test-app.js';

/**
 * Runs the real entry point (dist/main.js, as `npm run start:prod` does; the test setup builds it)
 * in a child process with the given environment.
 */
function runMain(env: Record<string, string>) {
  return spawnSync(process.execPath, ['dist/main.js'], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

// Most tests start the built entry point in a process of its own.
jest.setTimeout(PROCESS_TEST_TIMEOUT_MS);

describe('start-up (e2e)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-startup-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Every rule is unit-tested in app-config.spec.ts; these check the process: exit code, one line.
  it.each<[Record<string, string>, string]>([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '0', DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL'],
    [{ PORT: '0', ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
  ])('stops on a bad %p with one line naming %s', (env, variable) => {
    const result = runMain(env);
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
    expect(lines[0]).toMatch(/^Invalid configuration: /);
    expect(result.stdout).toBe('');
  });

  it.each(['prod', 'Production', 'staging', 'dev'])(
    'refuses NODE_ENV=%s with one line, before it touches the database',
    (nodeEnv) => {
      const database = join(dir, 'db', 'gateway.sqlite');
      const result = runMain({ NODE_ENV: nodeEnv, PORT: '0', DATABASE_URL: `sqlite:${database}` });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        `Invalid configuration: NODE_ENV must be one of production, development, test (got "${nodeEnv}")`,
      ]);
      expect(existsSync(database)).toBe(false);
    },
  );

  it('names every configuration mistake at once, one line each, and nothing else', () => {
    const result = runMain({
      NODE_ENV: 'production',
      PORT: '70000',
      HOST: 'not a host',
      AUTH_MODE: 'open',
      LOG_LEVEL: 'loud',
      CALLBACK_SECRET_KEY: 'abc',
      CHECKOUT_SANDBOX: 'true',
      DATABASE_URL: `sqlite:${join(dir, 'g.sqlite')}`,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines.map((line) => /^Invalid configuration: (\w+) /.exec(line)?.[1])).toEqual([
      'PORT',
      'HOST',
      'AUTH_MODE',
      'LOG_LEVEL',
      'CALLBACK_SECRET_KEY',
      'CHECKOUT_SANDBOX',
      'AUDIT_KEY',
    ]);
    expect(result.stderr).not.toContain('"abc"');
  });

  it('refuses HOST=999.1.1.1 with one line before it touches the database', () => {
    const database = join(dir, 'db', 'gateway.sqlite');
    const result = runMain({ HOST: '999.1.1.1', PORT: '0', DATABASE_URL: `sqlite:${database}` });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(/^Invalid configuration: HOST must be /)]);
    expect(lines[0]).toContain('"999.1.1.1"');
    // Not migrated, not even opened: no database file and no folder for it.
    expect(existsSync(database)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('names the accepted schemes for an unknown DATABASE_URL, without the rest of the URL', () => {
    const result = runMain({ PORT: '0', DATABASE_URL: 'mysql://root:s3cret-pass@db/x' });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('sqlite:<path>, sqlite::memory:');
    expect(lines[0]).not.toContain('s3cret-pass');
  });

  it('reports a database it cannot reach in one line on stderr naming DATABASE_URL, and JSON log lines only on stdout', () => {
    const result = runMain({
      PORT: '0',
      DATABASE_URL: 'postgres://gateway:s3cret-pass@127.0.0.1:1/nowhere',
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'Startup failed: DATABASE_URL (postgres://gateway@127.0.0.1:1/nowhere): nothing accepts connections at that host and port (connect ECONNREFUSED 127.0.0.1:1)',
    ]);
    const lines = result.stdout.trim().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(result.stdout + result.stderr).not.toContain('s3cret-pass');
  });

  it.each<[string, (dir: string) => Record<string, string>, RegExp]>([
    [
      'a SQLite path that is a folder',
      (dir) => ({ DATABASE_URL: `sqlite:${dir}` }),
      /^Startup failed: DATABASE_URL \(sqlite:.+\): the SQLite file cannot be opened .*SQLITE_CANTOPEN/,
    ],
    [
      'a SQLite path below a file',
      (dir) => ({ DATABASE_URL: `sqlite:${join(dir, 'not-a-folder', 'g.sqlite')}` }),
      /^Startup failed: DATABASE_URL \(sqlite:.+\): a part of its path is a file, not a folder/,
    ],
    [
      'a file that is not a SQLite database',
      (dir) => ({ DATABASE_URL: `sqlite:${join(dir, 'not-a-folder')}` }),
      /^Startup failed: DATABASE_URL \(sqlite:.+\): the file is not a SQLite database/,
    ],
    [
      'a PostgreSQL host nobody knows',
      () => ({
        DATABASE_URL: 'postgres://gateway:s3cret-pass@no-such-host.invalid:5432/gateway',
        CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
        AUDIT_KEY: TEST_AUDIT_KEY,
      }),
      /^Startup failed: DATABASE_URL \(postgres:\/\/gateway@no-such-host\.invalid:5432\/gateway\): its host name is not known/,
    ],
    [
      'a HOST that is not an address of this machine',
      (dir) => ({ HOST: '192.0.2.1', DATABASE_URL: `sqlite:${join(dir, 'g.sqlite')}` }),
      /^Startup failed: HOST \(192\.0\.2\.1\) is not an address of this machine/,
    ],
  ])('names the setting at fault for %s, in one line', (_what, env, line) => {
    writeFileSync(join(dir, 'not-a-folder'), 'plain text, not a database');
    const result = runMain({ PORT: '0', ...env(dir) });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(line)]);
    expect(result.stderr).not.toContain('s3cret-pass');
  });

  it('names PORT when another process listens on it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const result = runMain({
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: `sqlite:${join(dir, 'g.sqlite')}`,
      });
      expect(result.status).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^Startup failed: PORT \\(${port}\\) is in use on HOST 127\\.0\\.0\\.1 by another process`,
          ),
        ),
      ]);
    } finally {
      taken.close();
    }
  });

  it('says in one log line where a production start listens', async () => {
    const main = await startMain({
      NODE_ENV: 'production',
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      DATABASE_URL: `sqlite:${join(dir, 'g.sqlite')}`,
      LOG_LEVEL: 'info',
    });
    try {
      expect((await http(`${main.url}/health/ready`)).status).toBe(200);
      const startupLines = () =>
        main
          .output()
          .split('\n')
          .filter((line) => line.includes('"context":"Startup"'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      // The log is written in blocks: the line may follow the first answers.
      for (let tries = 0; startupLines().length === 0 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const lines = startupLines();
      expect(lines).toEqual([
        expect.objectContaining({
          level: 30,
          host: '127.0.0.1',
          port: main.port,
          url: main.url,
          msg: `Listening on 127.0.0.1:${main.port} (this machine only): ${main.url}`,
        }),
      ]);
    } finally {
      main.child.kill('SIGTERM');
      await main.exited;
    }
  });

  it('refuses keys that cannot read what the database holds, naming each variable', async () => {
    const database = `sqlite:${join(dir, 'keys.sqlite')}`;
    const [first, second] = [7, 8].map((byte) => Buffer.alloc(32, byte).toString('base64'));
    const production = (
      callbackKey: string,
      auditKey: string,
      more: Record<string, string> = {},
    ) => ({
      NODE_ENV: 'production',
      ADMIN_TOKEN: 'startup-admin-token-0123456789-abcdefgh',
      DATABASE_URL: database,
      CALLBACK_SECRET_KEY: callbackKey,
      AUDIT_KEY: auditKey,
      ...more,
    });
    // A database written under the first keys: a merchant's secret, an audit event.
    const main = await startMain({ ...production(first, first), LOG_LEVEL: 'warn' });
    try {
      const created = await http(`${main.url}/admin/merchants`, {
        method: 'POST',
        headers: { authorization: 'Bearer startup-admin-token-0123456789-abcdefgh' },
        body: { id: 'acme', name: 'Acme' },
      });
      expect(created.status).toBe(201);
    } finally {
      main.child.kill('SIGTERM');
      await main.exited;
    }
    const refused = (env: Record<string, string>) => {
      const result = runMain({ ...env, PORT: '0' });
      expect(result.status).toBe(1);
      expect(result.stdout.split('\n').filter((l) => l.includes('Listening on'))).toEqual([]);
      return result.stderr.trim().split('\n');
    };
    expect(refused(production(second, first))).toEqual([
      expect.stringMatching(
        /^Invalid configuration: CALLBACK_SECRET_KEY cannot read the callback secrets this database holds \(merchant "acme"'s/,
      ),
    ]);
    expect(refused(production(first, second))).toEqual([
      expect.stringMatching(
        /^Invalid configuration: AUDIT_KEY is not the key of the audit chain's latest event \(key id [0-9a-f]{16}\)/,
      ),
    ]);
    expect(refused(production(second, second)).map((l) => l.split(' ')[2])).toEqual([
      'CALLBACK_SECRET_KEY',
      'AUDIT_KEY',
    ]);
    // A rotated audit key with the old one kept to verify: served.
    const rotated = await startMain({
      ...production(first, second, { AUDIT_KEYS_PREVIOUS: first }),
      LOG_LEVEL: 'warn',
    });
    try {
      expect((await http(`${rotated.url}/health/ready`)).status).toBe(200);
    } finally {
      rotated.child.kill('SIGTERM');
      await rotated.exited;
    }
  });

  it('refuses the checkout sandbox in production: one line, before it touches the database', async () => {
    const database = join(dir, 'db', 'gateway.sqlite');
    const production = {
      NODE_ENV: 'production',
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      DATABASE_URL: `sqlite:${database}`,
    };
    const result = runMain({ ...production, PORT: '0', CHECKOUT_SANDBOX: 'true' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^Invalid configuration: CHECKOUT_SANDBOX must not be true with NODE_ENV=production/,
      ),
    ]);
    expect(existsSync(database)).toBe(false);
    // The same production instance without the sandbox starts and serves.
    const main = await startMain({ ...production, CHECKOUT_SANDBOX: 'false', LOG_LEVEL: 'warn' });
    try {
      expect((await http(`${main.url}/health/ready`)).status).toBe(200);
    } finally {
      main.child.kill('SIGTERM');
      await main.exited;
    }
  });

  it('refuses AUTH_MODE=none in production', async () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      AUTH_MODE: 'none',
      DATABASE_URL: `sqlite:${join(dir, 'g.sqlite')}`,
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    await expect(serve(config, { migrate: true })).rejects.toThrow(/AUTH_MODE=none/);
  });

  it('refuses to serve in production while the demo merchant has an active key', async () => {
    /** A production configuration on a database file of its own. */
    const production = (file: string) =>
      loadConfig({
        NODE_ENV: 'production',
        CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
        AUDIT_KEY: TEST_AUDIT_KEY,
        DATABASE_URL: `sqlite:${join(dir, file)}`,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      });
    /** Serves after seeding one merchant with one key, as a seed file would. */
    const servedWith = (file: string, merchant: { id: string; name: string; apiKeys: string[] }) =>
      serve(production(file), {
        migrate: true,
        beforeListen: async (app) => {
          const { SeedRunner } = await import('../src/seeding/seed-runner.js');
          const { validateSeed } = await import('../src/seeding/seed-validation.js');
          const seed = await validateSeed({ merchants: [merchant] });
          if (!seed.ok) throw new Error('bad seed');
          await app.get(SeedRunner).run(seed.seed);
        },
      });
    await expect(
      servedWith('g.sqlite', {
        id: 'demo',
        name: 'Demo',
        apiKeys: ['demo-key-0123456789-abcdefghijklmnop'],
      }),
    ).rejects.toThrow(
      /demo merchant "demo" has an active API key\. To revoke it, start once without NODE_ENV=production .*GET \/admin\/merchants\/demo\/api-keys lists its keys, and DELETE \/admin\/merchants\/demo\/api-keys\/<keyId> revokes each one/,
    );

    // The published sandbox key is refused on any merchant, not only on the demo merchant.
    await expect(
      servedWith('elsewhere.sqlite', {
        id: 'not-demo',
        name: 'Not demo',
        apiKeys: [SANDBOX_API_KEY],
      }),
    ).rejects.toThrow(
      /published sandbox API key is active on the merchant "not-demo"\. To revoke it, .*DELETE \/admin\/merchants\/not-demo\/api-keys\/[0-9a-f-]{36} revokes it/,
    );

    // Without a demo key the same production configuration serves.
    const { app, url } = await serve(production('clean.sqlite'), { migrate: true });
    try {
      const live = await http(url + '/health/live');
      expect(live.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('starts with nothing written to stderr: no deprecation or other warning', async () => {
    const main = await startMain({
      DATABASE_URL: `sqlite:${join(dir, 'quiet.sqlite')}`,
      LOG_LEVEL: 'warn',
    });
    try {
      expect((await http(`${main.url}/health/ready`)).status).toBe(200);
      expect(main.output()).toBe('');
    } finally {
      main.child.kill('SIGTERM');
      await main.exited;
    }
  });
});
