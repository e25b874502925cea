import { execFileSync } from 'node:child_process';

/**
 * Runs a command that needs root (`mount`, `chattr`), or fails naming what the test needs: CI runs
 * as root, and a test that cannot make its fault must fail, not pass without trying.
 */
export function needsRoot(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { stdio: 'pipe' });
  } catch (error) {
    throw new Error(
      `${command} ${args.join(' ')} failed (these tests need root): ${(error as Error).message}`,
      { cause: error },
    );
  }
}
