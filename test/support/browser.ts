import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/**
 * Time budgets of the browser tests. They bound a failure, they do not measure speed: a correct
 * page answers in well under a second. A page load runs the page's scripts (Swagger UI's is
 * 1.4 MB: 2.7 s on an idle two-core machine), and the browser shares the machine with the other
 * test workers and their servers, so loads get three times a step's budget.
 */
export const STEP_TIMEOUT_MS = 20_000;
export const PAGE_LOAD_TIMEOUT_MS = 60_000;
/** Per test: a browser test loads a few pages and takes a few dozen steps. */
export const BROWSER_TEST_TIMEOUT_MS = 180_000;

/** A new page in its own context, with the budgets above. */
export async function openPage(browser: Browser, options?: BrowserContextOptions): Promise<Page> {
  const page = await browser.newPage(options);
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.setDefaultNavigationTimeout(PAGE_LOAD_TIMEOUT_MS);
  return page;
}

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
