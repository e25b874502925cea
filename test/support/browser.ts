import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium: Playwright's own browser downloads are not used. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless Chromium as the browser tests drive it; a missing browser is a failure, never a skip. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: run "bash scripts/system-deps.sh" ` +
        '(installs the Debian package chromium), then run the browser tests again.',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
