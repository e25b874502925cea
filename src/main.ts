import { runCommand } from './cli/run-command.js';
import { serve } from './cli/serve.js';

/** Production entry point: migrate (unless MIGRATIONS_RUN=false) and serve; never seeds. */
await runCommand(async (config) => {
  await serve(config, { migrate: config.migrationsRun });
});
