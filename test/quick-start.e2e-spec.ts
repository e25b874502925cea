import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedCommand } from '../src/cli/seed-command.js';
import { loadConfig } from '../src/config/app-config.js';
import { ADMIN_TOKEN, adminHeaders, http } from './support/test-app.js';

const DEMO = JSON.parse(readFileSync(join('seeds', 'demo.json'), 'utf8')) as {
  merchants: { id: string; apiKeys: string[] }[];
};
const DEMO_KEY = DEMO.merchants.find((m) => m.id === 'demo')!.apiKeys[0];
const START_TIMEOUT_MS = 60_000;

interface Running {
  /** Everything the process wrote to stdout up to its banner. */
  banner: string;
  /** Everything it wrote to stdout so far. */
  output(): string;
  url: string;
  stop(): Promise<void>;
}

function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

describe('quick start banner (e2e, dist/quick-start.js)', () => {
  let dir: string;
  let database: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-quick-start-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  beforeEach(() => {
    database = join(dir, `db-${++n}`, 'gateway.sqlite');
  });

  async function quickStart(env: Record<string, string> = { HOST: '127.0.0.1' }): Promise<Running> {
    // `npm start` runs dist/quick-start.js once it is built; the test setup builds it.
    const child = spawn(process.execPath, ['dist/quick-start.js'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: `sqlite:${database}`,
        PORT: '0',
        ADMIN_TOKEN,
        LOG_LEVEL: 'silent',
        HTTP_PLATFORM: process.env.HTTP_PLATFORM ?? 'express',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const stop = async () => {
      child.kill('SIGTERM');
      if (!(await exited(child, 20_000))) {
        child.kill('SIGKILL');
        await exited(child, 5_000);
      }
    };
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!/\n {2}Try: .*\n/.test(stdout)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`quick start did not print its banner\n${stdout}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = /\(sandbox\) at (\S+)/.exec(stdout)![1];
    return { banner: stdout, output: () => stdout, url, stop };
  }

  const keyLine = (banner: string) => banner.split('\n').find((l) => l.includes('Demo API key:'));

  /** The local address the process listens on at this port, as the kernel reports it. */
  function listeningAddress(port: number): string | undefined {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const [, local, , state] = line.trim().split(/\s+/);
        if (state === '0A' && local?.endsWith(`:${hexPort}`)) return local.split(':')[0];
      }
    }
    return undefined;
  }

  it('prints its banner first, before any log line, with a Try line a shell such as zsh runs as it is', async () => {
    const running = await quickStart({ HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    try {
      // The jobs log as they start (the audit chain's head at once): after the banner.
      const deadline = Date.now() + 10_000;
      while (!running.output().includes('Audit chain head') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const lines = running.output().split('\n');
      expect(lines[0]).toBe('');
      expect(lines[1]).toMatch(/^ {2}Payment gateway read API \(sandbox\) at /);
      const logs = lines.filter((line) => line.startsWith('{'));
      expect(logs.length).toBeGreaterThan(0);
      const tryLine = lines.findIndex((line) => line.startsWith('  Try:'));
      expect(lines.findIndex((line) => line.startsWith('{'))).toBeGreaterThan(tryLine);
      // The URL is quoted: `?` unquoted is a pattern to zsh ("no matches found").
      const url = `${running.url}/api/crypto-currency-protocol-processors?countryCode=IE`;
      expect(lines[tryLine]).toBe(`  Try:          curl -H 'key: ${DEMO_KEY}' '${url}'`);
    } finally {
      await running.stop();
    }
  });

  it('listens on 127.0.0.1 only unless HOST is set, and says so', async () => {
    const closed = await quickStart({});
    try {
      expect(closed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(listeningAddress(Number(new URL(closed.url).port))).toBe('0100007F');
      expect(closed.banner).toContain(
        'Listening:    127.0.0.1 only, this machine; set HOST=0.0.0.0 to open it to others',
      );
    } finally {
      await closed.stop();
    }
    const open = await quickStart({ HOST: '0.0.0.0' });
    try {
      expect(listeningAddress(Number(new URL(open.url).port))).toBe('00000000');
      expect(open.banner).toContain('Listening:    on 0.0.0.0, as HOST says');
    } finally {
      await open.stop();
    }
  }, 120_000);

  it('advertises the demo key only while it works', async () => {
    const first = await quickStart();
    let keyId: string;
    try {
      expect(first.banner).toContain('Demo data:    loaded from seeds/demo.json');
      expect(keyLine(first.banner)).toBe(
        `  Demo API key: ${DEMO_KEY}   (send it in the "key" header)`,
      );
      expect(first.banner).toContain(`curl -H 'key: ${DEMO_KEY}' '${first.url}/api/`);
      // The URL it prints first is the sandbox's home page; the demo shop is next.
      expect(first.banner).toContain(`(sandbox) at ${first.url}   (start here)`);
      expect(first.banner).toContain(
        `  Demo shop:    ${first.url}/demo   (the whole checkout in one window)`,
      );
      const home = await http(`${first.url}/`);
      expect(home.status).toBe(200);
      expect(home.text).toContain(DEMO_KEY);
      const demo = await http(`${first.url}/demo`);
      expect(demo.status).toBe(200);
      expect(demo.text).toContain('src="/widgets/sgpg.js"');

      const keys = await http(`${first.url}/admin/merchants/demo/api-keys`, {
        headers: adminHeaders,
      });
      expect(keys.body.payload).toEqual([expect.objectContaining({ last4: DEMO_KEY.slice(-4) })]);
      keyId = keys.body.payload[0].keyId;
      const revoked = await http(`${first.url}/admin/merchants/demo/api-keys/${keyId}`, {
        method: 'DELETE',
        headers: adminHeaders,
      });
      expect(revoked.status).toBe(204);
    } finally {
      await first.stop();
    }

    const second = await quickStart();
    try {
      expect(second.banner).toContain('Demo data:    database not empty, nothing seeded');
      expect(keyLine(second.banner)).toBe(
        '  Demo API key: revoked; create one with POST /admin/merchants/demo/api-keys',
      );
      expect(second.banner).not.toContain(DEMO_KEY);
      expect(second.banner).toContain(`curl -H 'key: <your key>' '${second.url}/api/`);
      const created = await http(`${second.url}/admin/merchants/demo/api-keys`, {
        method: 'POST',
        headers: adminHeaders,
      });
      expect(created.status).toBe(201);
    } finally {
      await second.stop();
    }

    const third = await quickStart();
    try {
      expect(keyLine(third.banner)).toBe(
        '  Demo API key: revoked; merchant "demo" has other working keys (GET /admin/merchants/demo/api-keys)',
      );
      expect(third.banner).not.toContain(DEMO_KEY);
    } finally {
      await third.stop();
    }
  }, 180_000);

  it('says so when the database does not hold the demo key at all', async () => {
    const seedFile = join(dir, 'other.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        cryptoPairs: [
          {
            currencyCode: 'USDT',
            currencyName: 'Tether',
            protocol: 'TRC20',
            countryCode: 'IE',
          },
        ],
      }),
    );
    const config = loadConfig({ DATABASE_URL: `sqlite:${database}`, LOG_LEVEL: 'silent' });
    const io = { out: () => undefined, err: () => undefined };
    expect(await seedCommand([seedFile], config, io)).toBe(0);

    const running = await quickStart();
    try {
      expect(running.banner).toContain('Demo data:    database not empty, nothing seeded');
      expect(keyLine(running.banner)).toBe(
        '  Demo API key: not in this database; create one with POST /admin/merchants/demo/api-keys',
      );
      expect(running.banner).not.toContain(DEMO_KEY);
    } finally {
      await running.stop();
    }
  }, 120_000);
});
