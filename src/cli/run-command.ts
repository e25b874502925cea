import { AppConfig, ConfigError, loadConfig } from '../config/app-config.js';
import { startupFailureLine } from './startup-failure.js';

/**
 * Loads and validates the configuration, then runs the command. Bad variables stop the process
 * with one line each naming them, before anything else happens; a configuration found wrong
 * later (keys that cannot read the database) the same way; any other failure with one line that
 * names the setting at fault when it can tell (see startupFailureLine).
 */
export async function runCommand(
  command: (config: AppConfig) => Promise<void>,
  env: Record<string, string | undefined> = process.env,
): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  try {
    await command(config);
  } catch (error) {
    const line = error instanceof ConfigError ? error.message : startupFailureLine(error, config);
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }
}
