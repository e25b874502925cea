import { isIP } from 'node:net';
import { isHostName } from '../common/host-names.js';

/**
 * Typed configuration, read and validated once from the environment.
 * Every default and rule lives here; the rest of the code receives an AppConfig.
 */
export type AuthMode = 'api-key' | 'none';
export type HttpPlatform = 'express' | 'fastify';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** TRUST_PROXY as both platforms take it (Express's `trust proxy`, Fastify's `trustProxy`). */
export type TrustProxy = false | readonly string[];

export interface RateLimitConfig {
  /** Requests per window per API key (or per address without a key). */
  generalLimit: number;
  generalWindowSeconds: number;
  /** Payment-status lookups that end in 404, per key, per window. */
  notFoundLimit: number;
  notFoundWindowSeconds: number;
}

/** Time limits of the HTTP server, the same on both platforms. */
export interface HttpTimeoutsConfig {
  /** A request's headers must arrive within this time. */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this time. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
}

export interface AppConfig {
  nodeEnv: NodeEnv;
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
  /**
   * Which peers are proxies whose `X-Forwarded-For` names the client (the platforms' own `trust
   * proxy`): false (none: the client is the connection's peer) or the proxies' addresses and
   * networks. Every per-address limit counts the client this gives.
   */
  trustProxy: TrustProxy;
  rateLimit: RateLimitConfig;
  http: HttpTimeoutsConfig;
  /** On SIGTERM/SIGINT, what is still open after this time is closed and the process exits. */
  shutdownTimeoutMs: number;
  /** Connections to PostgreSQL per instance (SQLite has one). */
  databasePoolSize: number;
  /** Redis shared by every instance for the rate-limit counters; each instance counts alone without. */
  redisUrl: string | undefined;
  /** Prefix of this deployment's keys in Redis, so that several deployments can share one server. */
  redisKeyPrefix: string;
  callbacks: CallbacksConfig;
  personalData: PersonalDataConfig;
  audit: AuditConfig;
  checkout: CheckoutConfig;
  deposits: DepositsConfig;
}

/** Paying a checkout on chain (docs/operators.md, "Deposits"). */
export interface DepositsConfig {
  /** A rate older than this is stale: it quotes nothing. */
  rateMaxAgeSeconds: number;
  /** How long a quote holds before the page offers a fresh one (unless a deposit was seen). */
  quoteTtlSeconds: number;
  /** How long after its session ended an address is still listed for watchers. */
  lateDepositWatchSeconds: number;
}

/** The checkout: init-iframe, the widget and its page (docs/checkout.md). */
export interface CheckoutConfig {
  /** How long a checkout token opens its page; past it the session becomes NOT_COMPLETED EXPIRED. */
  tokenTtlSeconds: number;
  /** The sandbox: the page lets a tester choose each outcome; refused with NODE_ENV=production. */
  sandbox: boolean;
  /** How often this instance looks for checkouts past their lifetime. */
  expirySweepSeconds: number;
}

/** The keys of the audit chain (docs/operators.md, "The audit key"). */
export interface AuditConfig {
  /** AUDIT_KEY: the key that makes new links (32 bytes); the SQLite sandbox keeps one in a file when unset. */
  key: Buffer | undefined;
  /** AUDIT_KEYS_PREVIOUS: keys that made older links, kept to verify them after a rotation. */
  previousKeys: readonly Buffer[];
}

/** Previous audit keys kept at most. */
export const MAX_PREVIOUS_AUDIT_KEYS = 16;

/** How long the personal data of payment sessions is kept (docs/operators.md, "Personal data"). */
export interface PersonalDataConfig {
  /** Days a session may have been final before its personal data is erased; 0 keeps it forever. */
  retentionDays: number;
  /** How often this instance looks for sessions past retention. */
  sweepSeconds: number;
}

/** Merchant callbacks: delivery, retries, secrets, safety. */
export interface CallbacksConfig {
  /** This instance delivers callbacks (they are stored, and delivered by some instance, either way). */
  enabled: boolean;
  /** A delivery succeeds on a 2xx answer within this time. */
  timeoutMs: number;
  /** Seconds to wait after each failed attempt; after the last one the callback is failed. */
  retrySchedule: readonly number[];
  /** Base64 of 32 bytes encrypting the merchants' callback secrets; see CallbackSecretKey. */
  secretKey: Buffer | undefined;
  /** Deliver to loopback, private, link-local and metadata addresses (always allowed outside production). */
  allowPrivateNetworks: boolean;
}

/** The longest a callback is retried, counted from its first attempt. */
export const CALLBACK_RETRY_WINDOW_SECONDS = 24 * 60 * 60;

/**
 * After a failed attempt: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then every 2 h until 24 h after
 * the first attempt.
 */
export const DEFAULT_CALLBACK_RETRY_SCHEDULE: readonly number[] = (() => {
  const delays = [5, 30, 120, 600, 1800, 3600];
  let elapsed = delays.reduce((sum, d) => sum + d, 0);
  while (elapsed + 7200 <= CALLBACK_RETRY_WINDOW_SECONDS) {
    delays.push(7200);
    elapsed += 7200;
  }
  return delays;
})();

/** A variable at fault and the rule it breaks. */
export interface ConfigProblem {
  variable: string;
  rule: string;
}

/**
 * What is wrong with the configuration: every variable at fault, each on a line of its own
 * (`Invalid configuration: <VARIABLE> <rule>`), in the order they are read; the first one also as
 * `variable` and `rule`.
 */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(
    readonly variable: string,
    readonly rule: string,
    others: readonly ConfigProblem[] = [],
  ) {
    const problems = [{ variable, rule }, ...others];
    super(problems.map((p) => `Invalid configuration: ${p.variable} ${p.rule}`).join('\n'));
    this.problems = problems;
    this.name = 'ConfigError';
  }

  /** One error holding the problems of all of them, in order. */
  static of(errors: readonly ConfigError[]): ConfigError {
    const [first, ...others] = errors.flatMap((error) => error.problems);
    return new ConfigError(first.variable, first.rule, others);
  }
}

type Env = Record<string, string | undefined>;

export interface IntegerRule {
  default: number;
  min: number;
  max: number;
}

/** Every integer variable with its default and limits: the one source of these numbers. */
export const INTEGER_VARIABLES = {
  PORT: { default: 3000, min: 0, max: 65_535 },
  CATALOG_CACHE_TTL_SECONDS: { default: 60, min: 0, max: 86_400 },
  RATE_LIMIT_PER_MINUTE: { default: 600, min: 1, max: 1_000_000_000 },
  RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: { default: 30, min: 1, max: 1_000_000_000 },
  SHUTDOWN_TIMEOUT_MS: { default: 10_000, min: 1_000, max: 120_000 },
  HEADERS_TIMEOUT_MS: { default: 10_000, min: 1_000, max: 120_000 },
  REQUEST_TIMEOUT_MS: { default: 30_000, min: 1_000, max: 600_000 },
  KEEP_ALIVE_TIMEOUT_MS: { default: 5_000, min: 1_000, max: 120_000 },
  // At least 3: the reads' pool takes one, and migrations hold two of the writes' (see
  // readPoolSize in src/database/dialect.ts); fewer could never finish starting.
  DATABASE_POOL_SIZE: { default: 10, min: 3, max: 200 },
  CALLBACK_TIMEOUT_MS: { default: 10_000, min: 100, max: 60_000 },
  PERSONAL_DATA_RETENTION_DAYS: { default: 395, min: 0, max: 36_500 },
  PERSONAL_DATA_SWEEP_SECONDS: { default: 60, min: 1, max: 86_400 },
  CHECKOUT_TOKEN_TTL_SECONDS: { default: 1_800, min: 1, max: 604_800 },
  CHECKOUT_EXPIRY_SWEEP_SECONDS: { default: 10, min: 1, max: 3_600 },
  RATE_MAX_AGE_SECONDS: { default: 300, min: 1, max: 86_400 },
  QUOTE_TTL_SECONDS: { default: 900, min: 1, max: 86_400 },
  LATE_DEPOSIT_WATCH_SECONDS: { default: 604_800, min: 0, max: 31_536_000 },
} as const satisfies Record<string, IntegerRule>;

export type IntegerVariable = keyof typeof INTEGER_VARIABLES;

export const DEFAULT_DATABASE_URL = 'sqlite:data/gateway.sqlite';
export const DEFAULT_HOST = '0.0.0.0';
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/**
 * The kinds of DATABASE_URL this build accepts: what the URL starts with, the forms shown in the
 * error message, and whether a URL of that kind is complete. Another database is one more entry.
 */
export interface DatabaseUrlScheme {
  prefix: string;
  forms: readonly string[];
  isComplete(url: string): boolean;
}

export const DATABASE_URL_SCHEMES: readonly DatabaseUrlScheme[] = [
  {
    prefix: 'sqlite:',
    forms: ['sqlite:<path>', 'sqlite::memory:'],
    isComplete: (url) => url.length > 'sqlite:'.length,
  },
  ...['postgres://', 'postgresql://'].map((prefix) => ({
    prefix,
    forms: [`${prefix}user:password@host:5432/database`],
    isComplete: (url: string) => hasHost(url),
  })),
];

/** Redis for the rate-limit counters shared by every instance. */
const REDIS_URL_PREFIXES = ['redis://', 'rediss://'];

function hasHost(url: string): boolean {
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

/** The kind of database a DATABASE_URL names. */
export type DatabaseKind = 'sqlite' | 'postgres';

export function databaseKindOf(databaseUrl: string): DatabaseKind {
  return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

/** A value as it may appear in the one-line error: quoted, escaped, cut. */
function shown(raw: string): string {
  return JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw);
}

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: IntegerVariable): number {
  const { default: fallback, min, max } = INTEGER_VARIABLES[name];
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got ${shown(raw)})`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got ${shown(raw)})`);
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
      `must be a path such as /pegasus-ci made of letters, digits, "._~-" and "/" (got ${shown(raw)})`,
    );
  }
  return trimmed;
}

/** The URL's scheme, for the error message: never the rest, which may hold a password. */
function schemeOf(url: string): string | undefined {
  return /^[A-Za-z][A-Za-z0-9+.-]{0,31}:/.exec(url)?.[0];
}

function databaseUrl(env: Env): string {
  const raw = read(env, 'DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  const scheme = DATABASE_URL_SCHEMES.find((s) => raw.startsWith(s.prefix));
  if (scheme?.isComplete(raw)) return raw;
  const accepted = DATABASE_URL_SCHEMES.flatMap((s) => s.forms).join(', ');
  const got = schemeOf(raw);
  const detail = scheme
    ? `the ${scheme.prefix} URL is incomplete`
    : got === undefined
      ? 'got no scheme'
      : `got the scheme ${shown(got)}`;
  throw new ConfigError('DATABASE_URL', `must be one of ${accepted} (${detail})`);
}

function host(env: Env): string {
  const raw = read(env, 'HOST') ?? DEFAULT_HOST;
  if (isIP(raw) !== 0 || isHostName(raw)) return raw;
  throw new ConfigError(
    'HOST',
    `must be an IPv4 or IPv6 address or a host name (RFC 1123) such as localhost (got ${shown(raw)})`,
  );
}

/** What NODE_ENV may be; anything else is a mistake (`prod`, `Production`), refused. */
export const NODE_ENVS = ['production', 'development', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/**
 * Reads and checks every variable, and throws one ConfigError naming every variable at fault
 * (not the first alone), so that one start shows every mistake.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: ConfigError[] = [];
  /** The value `value()` reads, or `fallback` with its problem kept when it breaks its rule. */
  const take = <T>(value: () => T, fallback: T): T => {
    try {
      return value();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error);
      return fallback;
    }
  };
  const int = (name: IntegerVariable) =>
    take(() => integer(env, name), INTEGER_VARIABLES[name].default);
  const choose = <T extends string>(name: string, allowed: readonly T[], fallback: T) =>
    take(() => oneOf(env, name, allowed, fallback), fallback);
  const flag = (name: string, fallback: 'true' | 'false') =>
    choose(name, ['true', 'false'], fallback) === 'true';

  const adminToken = read(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    problems.push(
      new ConfigError('ADMIN_TOKEN', `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`),
    );
  }
  const config: AppConfig = {
    nodeEnv: choose('NODE_ENV', NODE_ENVS, 'development'),
    port: int('PORT'),
    host: take(() => host(env), DEFAULT_HOST),
    contextPath: take(() => contextPath(env), ''),
    databaseUrl: take(() => databaseUrl(env), DEFAULT_DATABASE_URL),
    catalogCacheTtlSeconds: int('CATALOG_CACHE_TTL_SECONDS'),
    authMode: choose('AUTH_MODE', ['api-key', 'none'] as const, 'api-key'),
    adminToken,
    logLevel: choose(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    migrationsRun: flag('MIGRATIONS_RUN', 'true'),
    httpPlatform: choose('HTTP_PLATFORM', ['express', 'fastify'] as const, 'express'),
    trustProxy: take(() => trustProxy(env), false),
    rateLimit: {
      generalLimit: int('RATE_LIMIT_PER_MINUTE'),
      generalWindowSeconds: 60,
      notFoundLimit: int('RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE'),
      notFoundWindowSeconds: 60,
    },
    http: {
      headersTimeoutMs: int('HEADERS_TIMEOUT_MS'),
      requestTimeoutMs: int('REQUEST_TIMEOUT_MS'),
      keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS'),
    },
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS'),
    databasePoolSize: int('DATABASE_POOL_SIZE'),
    redisUrl: take(() => redisUrl(env), undefined),
    redisKeyPrefix: take(() => redisKeyPrefix(env), 'gateway:'),
    callbacks: {
      enabled: flag('CALLBACKS_ENABLED', 'true'),
      timeoutMs: int('CALLBACK_TIMEOUT_MS'),
      retrySchedule: take(() => retrySchedule(env), DEFAULT_CALLBACK_RETRY_SCHEDULE),
      secretKey: take(() => base64Key(env, 'CALLBACK_SECRET_KEY'), undefined),
      allowPrivateNetworks: flag('CALLBACK_ALLOW_PRIVATE_NETWORKS', 'false'),
    },
    personalData: {
      retentionDays: int('PERSONAL_DATA_RETENTION_DAYS'),
      sweepSeconds: int('PERSONAL_DATA_SWEEP_SECONDS'),
    },
    audit: {
      key: take(() => base64Key(env, 'AUDIT_KEY'), undefined),
      previousKeys: take(() => previousAuditKeys(env), []),
    },
    checkout: {
      tokenTtlSeconds: int('CHECKOUT_TOKEN_TTL_SECONDS'),
      sandbox: flag('CHECKOUT_SANDBOX', 'false'),
      expirySweepSeconds: int('CHECKOUT_EXPIRY_SWEEP_SECONDS'),
    },
    deposits: {
      rateMaxAgeSeconds: integer(env, 'RATE_MAX_AGE_SECONDS'),
      quoteTtlSeconds: integer(env, 'QUOTE_TTL_SECONDS'),
      lateDepositWatchSeconds: integer(env, 'LATE_DEPOSIT_WATCH_SECONDS'),
    },
  };
  problems.push(...combinationProblems(env, config));
  if (problems.length > 0) throw ConfigError.of(problems);
  return config;
}

/** Rules between variables, each read valid on its own. */
function combinationProblems(env: Env, config: AppConfig): ConfigError[] {
  const problems: ConfigError[] = [];
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  if (requestTimeoutMs < headersTimeoutMs) {
    problems.push(
      new ConfigError(
        'REQUEST_TIMEOUT_MS',
        `must be at least HEADERS_TIMEOUT_MS (${headersTimeoutMs}): the headers are part of the request (got ${requestTimeoutMs})`,
      ),
    );
  }
  if (config.checkout.sandbox && config.nodeEnv === 'production') {
    problems.push(
      new ConfigError(
        'CHECKOUT_SANDBOX',
        'must not be true with NODE_ENV=production: the sandbox lets anyone holding a checkout page choose its outcome',
      ),
    );
  }
  // Keys every instance must share, and production must not make up. A key given but broken is
  // named already, as the base64 of 32 bytes it is not.
  if (config.nodeEnv === 'production' || databaseKindOf(config.databaseUrl) === 'postgres') {
    const required = [
      [config.callbacks.secretKey, 'CALLBACK_SECRET_KEY', 'read the same callback secrets'],
      [config.audit.key, 'AUDIT_KEY', 'key the audit chain alike'],
    ] as const;
    for (const [key, variable, why] of required) {
      if (key !== undefined || read(env, variable) !== undefined) continue;
      problems.push(
        new ConfigError(
          variable,
          `is required with NODE_ENV=production and with PostgreSQL (every instance must ${why}): the base64 of 32 bytes`,
        ),
      );
    }
  }
  return problems;
}

function retrySchedule(env: Env): readonly number[] {
  const raw = read(env, 'CALLBACK_RETRY_SCHEDULE');
  if (raw === undefined) return DEFAULT_CALLBACK_RETRY_SCHEDULE;
  const parts = raw.split(',').map((part) => part.trim());
  if (
    parts.length > 100 ||
    parts.some(
      (p) => !/^\d+$/.test(p) || Number(p) < 1 || Number(p) > CALLBACK_RETRY_WINDOW_SECONDS,
    )
  ) {
    throw new ConfigError(
      'CALLBACK_RETRY_SCHEDULE',
      `must be 1 to 100 comma-separated whole seconds, each from 1 to ${CALLBACK_RETRY_WINDOW_SECONDS} (got ${shown(raw)})`,
    );
  }
  return parts.map(Number);
}

/** A secret of 32 bytes given as base64 (CALLBACK_SECRET_KEY, AUDIT_KEY); never echoed. */
function base64Key(env: Env, name: string): Buffer | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const key = decodeKey(raw);
  if (key === undefined) {
    throw new ConfigError(name, 'must be the base64 of 32 bytes (e.g. `openssl rand -base64 32`)');
  }
  return key;
}

function decodeKey(raw: string): Buffer | undefined {
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  return key.length === 32 ? key : undefined;
}

/** AUDIT_KEYS_PREVIOUS: comma-separated keys, each the base64 of 32 bytes. */
function previousAuditKeys(env: Env): Buffer[] {
  const raw = read(env, 'AUDIT_KEYS_PREVIOUS');
  if (raw === undefined) return [];
  const keys = raw.split(',').map((part) => decodeKey(part.trim()));
  if (keys.length > MAX_PREVIOUS_AUDIT_KEYS || keys.some((key) => key === undefined)) {
    throw new ConfigError(
      'AUDIT_KEYS_PREVIOUS',
      `must be 1 to ${MAX_PREVIOUS_AUDIT_KEYS} comma-separated keys, each the base64 of 32 bytes`,
    );
  }
  return keys as Buffer[];
}

/** Names both platforms' `trust proxy` take for well-known ranges (the `proxy-addr` package's). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: `false` (the default) or a comma-separated list of the proxies' addresses,
 * networks (CIDR) and range names. `true` (every peer a proxy) is refused: any client could then
 * choose the address it is counted by. So is a hop count, which the platforms do not read alike
 * (Fastify trusts no peer for a number, Express the nearest n).
 */
function trustProxy(env: Env): TrustProxy {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.every(isProxyAddress)) return entries;
  throw new ConfigError(
    'TRUST_PROXY',
    `must be false or a comma-separated list of the proxies' addresses or networks, such as 10.0.0.0/8 or ${PROXY_RANGE_NAMES.join(', ')}; true and hop counts are refused: they would let a client choose the address it is counted by (got ${shown(raw)})`,
  );
}

/** An IP address, a network in CIDR form, or a range name, as `proxy-addr` compiles them. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

function redisKeyPrefix(env: Env): string {
  const raw = read(env, 'REDIS_KEY_PREFIX') ?? 'gateway:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw)) {
    throw new ConfigError(
      'REDIS_KEY_PREFIX',
      `must be 1 to 64 of the characters A-Z a-z 0-9 : _ . - (got ${shown(raw)})`,
    );
  }
  return raw;
}

function redisUrl(env: Env): string | undefined {
  const raw = read(env, 'REDIS_URL');
  if (raw === undefined) return undefined;
  if (!REDIS_URL_PREFIXES.some((prefix) => raw.startsWith(prefix)) || !hasHost(raw)) {
    throw new ConfigError(
      'REDIS_URL',
      `must be ${REDIS_URL_PREFIXES.map((p) => `${p}host:port`).join(' or ')} (got the scheme ${shown(raw.split(':')[0])})`,
    );
  }
  return raw;
}

/** Injection token for the AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
