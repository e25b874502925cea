import { createEvmWatcher } from './watcher/create-watcher.js';
import { createWatcherLogger, describeError } from './watcher/watcher-log.js';
import {
  parseWatcherOptions,
  WATCHER_USAGE,
  WatcherOptionsError,
  type WatcherOptions,
} from './watcher/watcher-options.js';

/**
 * `npm run watcher -- evm --rpc-url <URL> --gateway-url <URL>`: the chain watcher, a process of
 * its own beside the service (docs/watcher.md). SIGTERM or SIGINT ends it between two rounds.
 */
let options: WatcherOptions;
try {
  options = parseWatcherOptions(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof WatcherOptionsError)) throw error;
  process.stderr.write(`${error.message}\n${WATCHER_USAGE}\n`);
  process.exit(2);
}

const logger = createWatcherLogger(options.logLevel);
const watcher = createEvmWatcher(options, logger);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'Stopping after the round under way');
    watcher.stop();
  });
}
try {
  process.exitCode = await watcher.run();
} catch (error) {
  logger.fatal({ err: describeError(error) }, 'Watcher failed');
  process.exitCode = 1;
}
// Idle keep-alive connections to the node or the gateway do not hold the process open.
process.exit();
