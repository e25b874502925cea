import { parseArgs } from 'node:util';
import type { LogLevel } from '../config/app-config.js';

/** What `npm run watcher -- evm …` is told on its command line and in its environment. */
export interface WatcherOptions {
  network: 'evm';
  /** The node's JSON-RPC endpoint (http or https). */
  rpcUrl: string;
  /** The gateway's base URL, its context path included (`https://pay.example.com/gw`). */
  gatewayUrl: string;
  /** The operator token (role `payments`) sent as a bearer token; never logged. */
  token: string;
  /** The chain the operator means to watch; the node must be on it. */
  chainId: number | undefined;
  /** Pause between two rounds once the watcher has caught up with the chain head. */
  pollMs: number;
  logLevel: LogLevel;
}

export const DEFAULT_POLL_SECONDS = 5;
/** The shortest pause between rounds: a node is asked for its head at most ten times a second. */
const MIN_POLL_SECONDS = 0.1;
const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];
/** The networks a watcher exists for. */
const NETWORKS = ['evm'] as const;

export const WATCHER_USAGE =
  'usage: npm run watcher -- evm --rpc-url <URL> --gateway-url <URL> [--chain-id <id>] ' +
  `[--poll-seconds <s>] (operator token in WATCHER_TOKEN; default poll ${DEFAULT_POLL_SECONDS} s)`;

/** A command line or environment the watcher cannot start with; its message names what is wrong. */
export class WatcherOptionsError extends Error {}

export function parseWatcherOptions(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): WatcherOptions {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new WatcherOptionsError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    throw new WatcherOptionsError(`name one network (${NETWORKS.join(', ')})`);
  }
  const network = positionals[0];
  if (!(NETWORKS as readonly string[]).includes(network)) {
    throw new WatcherOptionsError(
      `unknown network "${network}": a watcher exists for ${NETWORKS.join(', ')}`,
    );
  }
  const token = env.WATCHER_TOKEN?.trim();
  if (!token) throw new WatcherOptionsError('WATCHER_TOKEN must hold the operator token');
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new WatcherOptionsError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return {
    network: 'evm',
    // A provider's key often travels in the RPC URL's path or query: both are kept as given.
    rpcUrl: httpUrl(values['rpc-url'], '--rpc-url'),
    gatewayUrl: baseUrl(httpUrl(values['gateway-url'], '--gateway-url')),
    token,
    chainId: values['chain-id'] === undefined ? undefined : chainId(values['chain-id']),
    pollMs: Math.round(pollSeconds(values['poll-seconds']) * 1000),
    logLevel: logLevel as LogLevel,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'rpc-url': { type: 'string' },
      'gateway-url': { type: 'string' },
      'chain-id': { type: 'string' },
      'poll-seconds': { type: 'string' },
    },
  });
}

function httpUrl(value: string | undefined, flag: string): string {
  if (value === undefined) throw new WatcherOptionsError(`${flag} is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WatcherOptionsError(`${flag} must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WatcherOptionsError(`${flag} must be an http or https URL`);
  }
  return value;
}

/** The gateway's base URL: routes are appended to it, so it ends without a slash. */
function baseUrl(value: string): string {
  const url = new URL(value);
  if (url.search || url.hash || url.username || url.password) {
    throw new WatcherOptionsError('--gateway-url must have no credentials, query or fragment');
  }
  return value.replace(/\/+$/, '');
}

function chainId(value: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new WatcherOptionsError('--chain-id must be a positive integer (1, 56, 137, …)');
  }
  return Number(value);
}

function pollSeconds(value: string | undefined): number {
  if (value === undefined) return DEFAULT_POLL_SECONDS;
  const seconds = /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : NaN;
  if (!(seconds >= MIN_POLL_SECONDS && seconds <= 3600)) {
    throw new WatcherOptionsError(
      `--poll-seconds must be a number from ${MIN_POLL_SECONDS} to 3600`,
    );
  }
  return seconds;
}
