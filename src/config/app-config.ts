/**
 * Typed configuration, read and validated once from the environment.
 * Every default and rule lives here; the rest of the code receives an AppConfig.
 */
export type AuthMode = 'api-key' | 'none';
export type HttpPlatform = 'express' | 'fastify';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface RateLimitConfig {
  /** Requests per window per API key (or per address without a key). */
  generalLimit: number;
  generalWindowSeconds: number;
  /** Payment-status lookups that end in 404, per key, per window. */
  notFoundLimit: number;
  notFoundWindowSeconds: number;
}

export interface AppConfig {
  nodeEnv: string;
  port: number;
  host: string;
  contextPath: string;
  databaseUrl: string;
  catalogCacheTtlSeconds: number;
  authMode: AuthMode;
  adminToken: string | undefined;
  logLevel: LogLevel;
  migrationsRun: boolean;
  httpPlatform: HttpPlatform;
  rateLimit: RateLimitConfig;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly rule: string,
  ) {
    super(`Invalid configuration: ${variable} ${rule}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

function contextPath(env: Env): string {
  const raw = read(env, 'CONTEXT_PATH');
  if (raw === undefined || raw === '/') return '';
  const path = raw.startsWith('/') ? raw : `/${raw}`;
  const trimmed = path.replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) {
    throw new ConfigError(
      'CONTEXT_PATH',
      `must be a path such as /pegasus-ci made of letters, digits, "._~-" and "/" (got "${raw}")`,
    );
  }
  return trimmed;
}

function databaseUrl(env: Env): string {
  const raw = read(env, 'DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  if (!/^sqlite:.+$/.test(raw)) {
    throw new ConfigError(
      'DATABASE_URL',
      'must be sqlite:<path> or sqlite::memory: (PostgreSQL is not supported by this build)',
    );
  }
  return raw;
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/gateway.sqlite';
export const MIN_ADMIN_TOKEN_LENGTH = 32;

export function loadConfig(env: Env = process.env): AppConfig {
  const adminToken = read(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError('ADMIN_TOKEN', `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  const migrationsRun = oneOf(env, 'MIGRATIONS_RUN', ['true', 'false'], 'true') === 'true';
  return {
    nodeEnv: read(env, 'NODE_ENV') ?? 'development',
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: read(env, 'HOST') ?? '0.0.0.0',
    contextPath: contextPath(env),
    databaseUrl: databaseUrl(env),
    catalogCacheTtlSeconds: integer(env, 'CATALOG_CACHE_TTL_SECONDS', 60, 0, 86400),
    authMode: oneOf(env, 'AUTH_MODE', ['api-key', 'none'] as const, 'api-key'),
    adminToken,
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    migrationsRun,
    httpPlatform: oneOf(env, 'HTTP_PLATFORM', ['express', 'fastify'] as const, 'express'),
    rateLimit: {
      generalLimit: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000_000),
      generalWindowSeconds: 60,
      notFoundLimit: integer(env, 'RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE', 30, 1, 1_000_000_000),
      notFoundWindowSeconds: 60,
    },
  };
}

/** Injection token for the AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
