import { AppConfig, ConfigError, loadConfig } from '../config/app-config.js';

/**
 * Loads and validates the configuration, then runs the command. A bad variable stops the process
 * with one line naming it, before anything else happens.
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
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Startup failed: ${message}\n`);
    process.exit(1);
  }
}
