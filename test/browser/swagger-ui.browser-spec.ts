import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  BROWSER_TEST_TIMEOUT_MS,
  launchChromium,
  openPage,
  PAGE_LOAD_TIMEOUT_MS,
} from '../support/browser.js';
import { ADMIN_TOKEN, startTestApp, TestApp } from '../support/test-app.js';

// Jest takes the time limit of tests from its global configuration only (a project's testTimeout
// is ignored): a browser and the app starting together take longer than 30 s on a busy machine.
jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** The sandbox's data and its published demo key, as `npm start` seeds them. */
const DEMO = JSON.parse(readFileSync('seeds/demo.json', 'utf8'));
const DEMO_KEY: string = DEMO.merchants.find((m: { id: string }) => m.id === 'demo').apiKeys[0];

/** Waits until Swagger UI has rendered the operations: after its bundle has run, part of a load. */
async function operationsShown(page: Page): Promise<void> {
  await page.locator('.opblock').first().waitFor({ timeout: PAGE_LOAD_TIMEOUT_MS });
}

/** Opens the docs page and waits until Swagger UI has rendered the operations. */
async function openDocs(page: Page, docsUrl: string): Promise<void> {
  await page.goto(docsUrl);
  await operationsShown(page);
}

/** Authorize → the scheme's value → Authorize → Close, as a user does it. */
async function authorize(page: Page, scheme: string, value: string): Promise<void> {
  await page.locator('.auth-wrapper .authorize').click();
  const form = page
    .locator('.modal-ux .auth-container')
    .filter({ has: page.locator('h4', { hasText: scheme }) });
  await form.locator('input').first().fill(value);
  await form.locator('button.authorize').click();
  await form.getByRole('button', { name: 'Remove authorization' }).waitFor();
  await page.locator('.modal-ux .close-modal').click();
}

interface Shown {
  status: string;
  body: string;
  requestUrl: string;
}

/** Try it out → Execute on one operation, with what the page offers; returns what it shows. */
async function execute(
  page: Page,
  operationId: string,
  before?: (operation: ReturnType<Page['locator']>) => Promise<void>,
): Promise<Shown> {
  const operation = page.locator(`.opblock[id$="-${operationId}"]`);
  await operation.locator('.opblock-summary-control').click();
  await operation.locator('.try-out__btn').click();
  await before?.(operation);
  await operation.locator('button.execute').click();
  const response = operation.locator('.live-responses-table tbody tr.response').first();
  await response.waitFor();
  return {
    status: (await response.locator('.response-col_status').innerText()).trim(),
    body: await response.locator('.response-col_description').innerText(),
    requestUrl: await operation.locator('.request-url pre').innerText(),
  };
}

/** Everything the page keeps in the browser's storage, as text (evaluated in the page). */
async function storedText(page: Page): Promise<string> {
  return page.evaluate<string>(
    'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })',
  );
}

describe('Swagger UI on the sandbox (browser)', () => {
  let browser: Browser;
  let sandbox: TestApp;
  let prefixed: TestApp;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    [sandbox, prefixed] = await Promise.all([
      startTestApp({ AUTH_MODE: 'api-key' }),
      startTestApp({ AUTH_MODE: 'api-key', CONTEXT_PATH: '/pegasus-ci' }),
    ]);
    await Promise.all([sandbox.seed(DEMO), prefixed.seed(DEMO)]);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([sandbox?.close(), prefixed?.close()]);
  });
  beforeEach(async () => {
    page = await openPage(browser);
  });
  afterEach(async () => {
    await page?.close();
  });

  it('runs the catalog and the status lookup with the demo key, as offered', async () => {
    await openDocs(page, `${sandbox.url}/docs`);
    await authorize(page, 'apiKey', DEMO_KEY);

    const catalog = await execute(page, 'listCryptoPairs', async (operation) => {
      // Optional filters start empty: a pre-filled one would narrow the answer unasked.
      for (const name of ['countryCode', 'currencyCode', 'protocol']) {
        await expect(operation.locator(`input[placeholder="${name}"]`).inputValue()).resolves.toBe(
          '',
        );
      }
    });
    expect(catalog.status).toBe('200');
    expect(catalog.body).toContain('"currencyCode"');
    expect(catalog.requestUrl).toMatch(/\/api\/crypto-currency-protocol-processors(\?|$)/);

    const status = await execute(page, 'getPaymentStatus');
    expect(status.status).toBe('200');
    expect(status.body).toMatch(/"status":\s*"SUCCESSFUL"/);
  });

  it('opens authorized with the demo key in the sandbox: the catalog answers without Authorize', async () => {
    const checkoutSandbox = await startTestApp({ AUTH_MODE: 'api-key', CHECKOUT_SANDBOX: 'true' });
    try {
      await checkoutSandbox.seed(DEMO);
      await openDocs(page, `${checkoutSandbox.url}/docs`);
      await expect(page.locator('.auth-wrapper .authorize.locked').count()).resolves.toBe(1);
      const catalog = await execute(page, 'listCryptoPairs');
      expect(catalog.status).toBe('200');
      expect(catalog.body).toContain('"currencyCode"');
      // The operator token is still the operator's to give, and nothing is kept in storage.
      expect((await execute(page, 'listMerchants')).status).toBe('401');
      expect(await storedText(page)).not.toContain(DEMO_KEY);
    } finally {
      await checkoutSandbox.close();
    }
  });

  it('keeps the API key and the operator token out of the browser storage', async () => {
    await openDocs(page, `${sandbox.url}/docs`);
    await authorize(page, 'apiKey', DEMO_KEY);
    await authorize(page, 'adminToken', ADMIN_TOKEN);
    // The token works in this page...
    const merchants = await execute(page, 'listMerchants');
    expect(merchants.status).toBe('200');
    expect(merchants.body).toContain('"demo"');
    // ...and is kept nowhere else, and not after a reload.
    expect(await storedText(page)).not.toContain(ADMIN_TOKEN);
    expect(await storedText(page)).not.toContain(DEMO_KEY);
    await page.reload();
    await operationsShown(page);
    expect(await storedText(page)).not.toContain(ADMIN_TOKEN);
    await expect(page.locator('.auth-wrapper .authorize.locked').count()).resolves.toBe(0);
  });

  it('calls the URLs under CONTEXT_PATH', async () => {
    await openDocs(page, `${prefixed.url}/docs`);
    await authorize(page, 'apiKey', DEMO_KEY);
    const catalog = await execute(page, 'listCryptoPairs');
    expect(catalog.requestUrl).toMatch(
      new RegExp(
        `^${new URL(prefixed.url).origin}/pegasus-ci/api/crypto-currency-protocol-processors`,
      ),
    );
    expect(catalog.status).toBe('200');
    expect(catalog.body).toContain('"currencyCode"');
  });
});
