import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { createApp, migrate, startBackgroundWork } from '../../src/app.setup.js';
import { AppConfig, loadConfig } from '../../src/config/app-config.js';
import { SeedRunner } from '../../src/seeding/seed-runner.js';
import { validateSeed } from '../../src/seeding/seed-validation.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789-abcdefghij';

/** CALLBACK_SECRET_KEY of the tests that need one (PostgreSQL, production mode). */
export const TEST_CALLBACK_SECRET_KEY = Buffer.alloc(32, 42).toString('base64');

/** AUDIT_KEY of the tests that need one (PostgreSQL, production mode). */
export const TEST_AUDIT_KEY = Buffer.alloc(32, 43).toString('base64');

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  /** Base URL including CONTEXT_PATH, e.g. http://127.0.0.1:40123/pegasus-ci */
  url: string;
  dir: string;
  /** Log lines written by the app, when started with captureLogs. */
  logs: string[];
  /** Loads a seed file object through the real seed runner. */
  seed(content: unknown): Promise<void>;
  /** Everything stored, as text: to check what never reaches the database in clear. */
  dump(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The database the e2e suite runs on: a SQLite file per application, or, in the e2e-postgres
 * project, a database of its own per application on the PostgreSQL server the project started
 * (and Redis for the rate limits, with a key prefix per application).
 */
export const TEST_DIALECT: 'sqlite' | 'postgres' =
  process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

/** A fresh, empty database: a SQLite file in `dir`, or a new database on the test server. */
export async function freshDatabase(dir: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (TEST_DIALECT === 'sqlite') {
    return { url: `sqlite:${join(dir, 'gateway.sqlite')}`, drop: async () => undefined };
  }
  const server = process.env.TEST_POSTGRES_URL;
  if (!server) throw new Error('TEST_POSTGRES_URL is not set: the e2e-postgres project starts it');
  // Module state starts over in every spec file of a worker: the name must not depend on it.
  const name = `gw_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * Starts the real application (the same createApp as main.ts) on a fresh database (see
 * freshDatabase), migrated, listening on a random loopback port.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { captureLogs?: boolean } = {},
): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const database = env.DATABASE_URL === undefined ? await freshDatabase(dir) : undefined;
  const redis =
    TEST_DIALECT === 'postgres' && process.env.TEST_REDIS_URL && env.REDIS_URL === undefined
      ? {
          REDIS_URL: process.env.TEST_REDIS_URL,
          REDIS_KEY_PREFIX: `t${randomUUID().slice(0, 8)}:`,
        }
      : {};
  const config = loadConfig({
    DATABASE_URL: database?.url ?? env.DATABASE_URL,
    ...redis,
    // Required with PostgreSQL; the same keys for every application of the run.
    ...(TEST_DIALECT === 'postgres'
      ? { CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY, AUDIT_KEY: TEST_AUDIT_KEY }
      : {}),
    AUTH_MODE: 'none',
    LOG_LEVEL: options.captureLogs ? 'info' : 'silent',
    ADMIN_TOKEN,
    // Set per jest project (test/support/platform-*.cjs): the suite runs on both platforms.
    HTTP_PLATFORM: process.env.HTTP_PLATFORM ?? 'express',
    ...env,
  });
  const logs: string[] = [];
  const logStream = options.captureLogs
    ? new Writable({
        write(chunk: Buffer, _encoding, callback) {
          logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          callback();
        },
      })
    : undefined;
  const app = await createApp(config, { logStream });
  await migrate(app);
  startBackgroundWork(app);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}${config.contextPath}`;
  return {
    app,
    config,
    url,
    dir,
    logs,
    async seed(content: unknown) {
      const validation = await validateSeed(content);
      if (!validation.ok) throw new Error(JSON.stringify(validation.errors));
      await app.get(SeedRunner).run(validation.seed);
    },
    async dump() {
      return dumpDatabase(app.get(DataSource));
    },
    async close() {
      await app.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * All that is stored, as text. SQLite: the database file and its write-ahead log, byte for byte
 * (free pages included). PostgreSQL: every row of every table.
 */
async function dumpDatabase(dataSource: DataSource): Promise<string> {
  const options = dataSource.options;
  if (options.type === 'sqlite') {
    const file = String(options.database);
    let text = readFileSync(file).toString('latin1');
    if (existsSync(`${file}-wal`)) text += readFileSync(`${file}-wal`).toString('latin1');
    return text;
  }
  const tables = (await dataSource.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
  )) as { table_name: string }[];
  const rows = await Promise.all(
    tables.map((t) => dataSource.query(`SELECT * FROM "${t.table_name}"`)),
  );
  return JSON.stringify(rows);
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One real HTTP request; the body is parsed when it is JSON. */
export async function http(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    rawBody?: string;
  } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/**
 * The first log line of the application (parsed) that `matches`, once it is written: a request's
 * completion line is written when its response closes, after the client has its answer.
 * Undefined when no line matches within `timeoutMs`.
 */
export async function loggedLine(
  t: TestApp,
  matches: (line: Record<string, unknown>) => boolean,
  timeoutMs = 5000,
): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = t.logs.map((text) => JSON.parse(text) as Record<string, unknown>).find(matches);
    if (line !== undefined || Date.now() > deadline) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** An operator made with ADMIN_TOKEN: its id, name, role and token (shown this once). */
export async function createOperator(t: { url: string }, name: string, role: string) {
  const r = await http(`${t.url}/admin/operators`, {
    method: 'POST',
    headers: adminHeaders,
    body: { name, role },
  });
  expect(r.status).toBe(201);
  return r.body as { id: string; name: string; role: string; token: string };
}

/** The operator's listing of a session's callbacks on the service at `baseUrl`. */
export const callbacksOf = (baseUrl: string, key: string) =>
  http(`${baseUrl}/admin/payment-sessions/${key}/callbacks`, { headers: adminHeaders });

/**
 * The operator's listing of a session's callbacks once `settled` holds for it (or at the
 * deadline): an attempt is recorded just after the receiver has answered it.
 */
export async function callbacksWhen(
  baseUrl: string,
  key: string,
  settled: (callbacks: { state: string; attempts: object[] }[]) => boolean,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  let listed = await callbacksOf(baseUrl, key);
  while (!settled(listed.body.payload) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    listed = await callbacksOf(baseUrl, key);
  }
  return listed;
}

export { successfulResponse } from './fixtures.js';

/** Asserts the error envelope `{"errors":[{type, errorCode, message, field?}]}` and returns its entries. */
export function expectEnvelope(result: HttpResult, status: number, errorCode: string) {
  expect(result.status).toBe(status);
  expect(result.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Array.isArray(result.body?.errors)).toBe(true);
  for (const error of result.body.errors) {
    expect(typeof error.type).toBe('string');
    expect(error.type.length).toBeGreaterThan(0);
    expect(typeof error.message).toBe('string');
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.errorCode).toBe(errorCode);
  }
  return result.body.errors as {
    type: string;
    errorCode: string;
    message: string;
    field?: string;
  }[];
}
