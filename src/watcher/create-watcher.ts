import type { Logger } from 'pino';
import { EvmNode } from './evm-node.js';
import { EvmWatcher, type EvmWatcherSettings } from './evm-watcher.js';
import { GatewayClient } from './gateway-client.js';
import { Outage } from './outage.js';
import { originOf } from './watcher-log.js';

export interface EvmWatcherOptions extends EvmWatcherSettings {
  rpcUrl: string;
  gatewayUrl: string;
  token: string;
}

/** The watcher with its node and gateway clients, each with the Outage that logs its faults. */
export function createEvmWatcher(options: EvmWatcherOptions, logger: Logger): EvmWatcher {
  const node = new EvmNode(options.rpcUrl, new Outage(logger, 'node', originOf(options.rpcUrl)));
  const gateway = new GatewayClient(
    options.gatewayUrl,
    options.token,
    new Outage(logger, 'gateway', originOf(options.gatewayUrl)),
    logger,
  );
  return new EvmWatcher(node, gateway, logger, {
    chainId: options.chainId,
    pollMs: options.pollMs,
    backoff: options.backoff,
  });
}
