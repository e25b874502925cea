import { Inject, Injectable, type INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { ServiceState } from '../common/service-state.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { flushLogger } from '../logging/logging.js';
import type { NodeServer } from './node-server.js';

/** Time kept back from the deadline to close the database and write the last log lines. */
const CLOSING_MARGIN_MS = 500;

/**
 * SIGTERM and SIGINT: readiness answers 503 at once, no new connection is accepted, requests in
 * flight and still to come on open connections are answered with `Connection: close`, a
 * connection quiet for DRAIN_QUIET_MS is closed (see NodeServer.drain), then the
 * application closes (database included), logs are flushed, and the process exits 0 within
 * SHUTDOWN_TIMEOUT_MS, closing what is left at the deadline.
 */
@Injectable()
export class GracefulShutdown {
  private server?: NodeServer;
  private logger?: Logger;
  private running?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly state: ServiceState,
  ) {}

  attach(server: NodeServer, logger: Logger): void {
    this.server = server;
    this.logger = logger;
  }

  /** Shuts the application down on the first SIGTERM or SIGINT, then exits 0. */
  onSignals(app: INestApplication): void {
    const handler = (signal: NodeJS.Signals) => {
      void this.shutDown(app, signal).finally(() => process.exit(0));
    };
    process.once('SIGTERM', handler);
    process.once('SIGINT', handler);
  }

  /** Drains and closes the application; resolves before the deadline, whatever is left open. */
  shutDown(app: INestApplication, reason: string): Promise<void> {
    this.running ??= this.run(app, reason);
    return this.running;
  }

  private async run(app: INestApplication, reason: string): Promise<void> {
    const started = Date.now();
    const deadline = started + this.config.shutdownTimeoutMs;
    this.state.draining = true;
    this.state.shutdownDeadline = deadline - CLOSING_MARGIN_MS;
    this.logger?.info({ reason }, 'Shutting down');
    const giveUp = new Promise<void>((resolve) =>
      setTimeout(resolve, Math.max(0, deadline - CLOSING_MARGIN_MS / 5 - Date.now())).unref(),
    );
    const closing = (async () => {
      await this.server?.drain(deadline - CLOSING_MARGIN_MS);
      await app.close();
    })();
    await Promise.race([
      closing.catch((error: unknown) =>
        this.logger?.error({ err: String(error) }, 'Error while closing'),
      ),
      giveUp,
    ]);
    this.logger?.info({ durationMs: Date.now() - started }, 'Shut down');
    if (this.logger) flushLogger(this.logger);
  }
}
