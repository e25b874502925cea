import { Logger } from '@nestjs/common';
import { runCommand } from './cli/run-command.js';
import { serve } from './cli/serve.js';

/** Production entry point: migrate (unless MIGRATIONS_RUN=false) and serve; never seeds. */
await runCommand(async (config) => {
  const { url, listening } = await serve(config, { migrate: config.migrationsRun });
  new Logger('Startup').log(
    { url, host: listening.host, port: listening.port, nodeEnv: config.nodeEnv },
    `Listening on ${listening.host}:${listening.port} (${listening.reach}): ${url}`,
  );
});
