import { jest } from '@jest/globals';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, launchChromium, openPage } from '../support/browser.js';
import { PUBLISHED } from '../support/deposits.js';
import { adminHeaders, http, startTestApp, TestApp } from '../support/test-app.js';

// A browser, the sandbox and whole payments: more than the default time per test.
jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** The sandbox's data and its published demo merchant, as `npm start` seeds them. */
const DEMO = JSON.parse(readFileSync('seeds/demo.json', 'utf8'));
const DEMO_MERCHANT = DEMO.merchants.find((m: { id: string }) => m.id === 'demo');
/** Screenshots for docs/checkout.md, made here so that they stay true. */
const SCREENSHOTS = 'docs/images';

/** The page's width is its viewport's: nothing makes a phone scroll sideways. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  // Evaluated in the page, as text: the project's types do not describe the browser's.
  const [scrollWidth, width] = await page.evaluate<number[]>(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  );
  expect(scrollWidth).toBeLessThanOrEqual(width);
}

describe('the sandbox in a browser, as a newcomer opens it', () => {
  let browser: Browser;
  let t: TestApp;
  let page: Page;

  beforeAll(async () => {
    [browser, t] = await Promise.all([
      launchChromium(),
      startTestApp({ AUTH_MODE: 'api-key', CHECKOUT_SANDBOX: 'true' }),
    ]);
    await t.seed(DEMO);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(async () => {
    await page?.close();
  });

  async function open(width: number, path: string, height = 800): Promise<string[]> {
    page = await openPage(browser, { viewport: { width, height } });
    const problems: string[] = [];
    // A refused inline script or resource shows as a console error (CSP); the browser's own
    // request for a favicon, which no page names, is not the page's.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) {
        problems.push(`${message.text()} (${message.location().url})`);
      }
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${t.url}${path}`);
    return problems;
  }

  it('opens / : what runs here, the demo key, and the way to the demo shop and the docs', async () => {
    const problems = await open(360, '/');
    await page.getByRole('heading', { level: 1, name: 'Payment gateway sandbox' }).waitFor();
    expect(await page.locator('#demo-key').innerText()).toBe(DEMO_MERCHANT.apiKeys[0]);
    expect(await page.getByRole('link', { name: 'API docs' }).first().getAttribute('href')).toBe(
      '/docs',
    );
    await expectNoSidewaysScroll(page);
    await page.screenshot({ path: `${SCREENSHOTS}/sandbox-home.png`, fullPage: true });
    // By keyboard: the first stop skips to the content; the navigation follows.
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to the content');
    await page.getByRole('navigation').getByRole('link', { name: 'Demo shop' }).click();
    await page.getByRole('heading', { level: 1, name: 'Demo shop' }).waitFor();
    expect(page.url()).toBe(`${t.url}/demo`);
    expect(problems).toEqual([]);
  });

  /**
   * Starts a payment in the demo shop and waits for the widget's page; the validationKey the shop
   * made up for it.
   */
  async function startPayment(amount: string): Promise<string> {
    await page.getByLabel('Amount').fill(amount);
    await page.getByLabel("Customer's country").selectOption('IE');
    await page.getByRole('button', { name: 'Pay with crypto' }).click();
    const started = page.locator('[data-step="init-iframe"]');
    await started.waitFor();
    expect(await started.locator('h3').innerText()).toBe(
      "Shop's server → gateway: init-iframe answered 200",
    );
    // What the page shows, and what it keeps folded (the whole request and answer).
    const exchange = (await started.textContent()) ?? '';
    // The key stays on the shop's server.
    expect(exchange).not.toContain(DEMO_MERCHANT.apiKeys[0]);
    expect(exchange).toContain(`"amount": "${amount}"`);
    await page.frameLocator('#widget-container iframe').locator('h1').waitFor();
    return /"validationKey": "(vk_demo_[\w-]+)"/.exec(exchange)![1];
  }

  /** What the log shows once the status lookup came: its steps' names and texts. */
  async function ended(): Promise<{ steps: string[]; callback: string; status: string }> {
    await page.locator('[data-step="status"]').waitFor();
    return {
      steps: await page
        .locator('#log > li')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-step') ?? '')),
      callback: (await page.locator('[data-step="callback"]').textContent()) ?? '',
      status: (await page.locator('[data-step="status"]').textContent()) ?? '',
    };
  }

  /** The operator's view of the callback: delivered, to the demo shop's receiver. */
  async function expectDelivered(key: string, path: string): Promise<void> {
    const listed = await http(`${t.url}/admin/payment-sessions/${key}/callbacks`, {
      headers: adminHeaders,
    });
    expect(listed.body.payload).toEqual([
      expect.objectContaining({ state: 'delivered', url: `${t.url}/demo/callbacks/${path}` }),
    ]);
  }

  it('pays through /demo: init-iframe, the widget, the verified callback, the status lookup', async () => {
    const problems = await open(1200, '/demo');
    const key = await startPayment('25.00');
    expect(await page.locator('#widget-title:focus').count()).toBe(1);
    const frame = page.frameLocator('#widget-container iframe');
    await frame.getByLabel('Tether (USDT) on TRC20').check();
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByLabel('Paid').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/demo-checkout.png`, fullPage: true });
    await frame.getByLabel('Paid').check();
    await frame.getByRole('button', { name: 'Confirm outcome' }).click();

    const log = await ended();
    expect(log.steps).toEqual([
      'init-iframe',
      'widget',
      'widget-success',
      'widget-complete',
      'callback',
      'status',
    ]);
    expect(log.callback).toContain('Gateway → shop: callback to its returnUrl, signature verified');
    expect(log.callback).toMatch(/webhook-id: msg_[\w-]+/);
    expect(log.callback).toContain(`"validationKey": "${key}"`);
    expect(log.callback).toContain('status: SUCCESSFUL');
    expect(log.callback).toContain('"status": "SUCCESSFUL"');
    expect(log.status).toContain('the status lookup answered 200');
    expect(log.status).toContain(`GET /api/gateway/payment-status/${key}`);
    expect(log.status).toContain('status: SUCCESSFUL');
    expect(log.status).toContain('"presentationAmount": "EUR25.00"');
    await frame.getByRole('heading', { name: 'Payment received. Thank you.' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/demo-paid.png`, fullPage: true });
    await expectDelivered(key, 'return');
    expect(problems).toEqual([]);
  });

  /** Chooses bitcoin in the widget's page: the sandbox's payment step, from the published key. */
  async function payOnChain() {
    const frame = page.frameLocator('#widget-container iframe');
    await frame.getByLabel('Bitcoin (BTC) on BITCOIN').check();
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByText('Sandbox — never send real funds').waitFor();
    // The demo merchant's addresses: the standard test phrase's, as the wallets print them.
    expect(PUBLISHED.bitcoin.addresses).toContain(await frame.locator('#pay-address').innerText());
    // 10.00 EUR at the demo price of 90,000 EUR per BTC, rounded up.
    expect(await frame.locator('#pay-amount').innerText()).toBe('0.00011112');
    // The tester's choice of outcome stays beside the transfers.
    expect(await frame.getByLabel('Paid').count()).toBe(1);
    return frame;
  }

  it('pays on chain in the sandbox: half (underpaid, what is left), then a tenth more: paid and success', async () => {
    // Tall enough for the whole payment step in the screenshot (a frame of another origin is
    // drawn only within the viewport).
    const problems = await open(1200, '/demo', 1700);
    await startPayment('10.00');
    const frame = await payOnChain();
    await page.screenshot({ path: `${SCREENSHOTS}/sandbox-payment.png`, fullPage: true });
    await frame.getByRole('button', { name: 'Send half (underpay)' }).click();
    await frame.locator('#progress', { hasText: 'Transfer seen' }).waitFor();
    // Confirmed (3, one a second) and short of the quote: what arrived and what is left.
    await frame.locator('#progress', { hasText: 'still missing' }).waitFor();
    expect(await frame.locator('#progress').innerText()).toBe(
      'Received 0.00005556 BTC: 0.00005556 BTC is still missing. Send it to the same address.',
    );
    await frame.getByRole('button', { name: 'Send a tenth more (overpay)' }).click();
    await frame.getByRole('heading', { name: 'Payment received. Thank you.' }).waitFor();
    const log = await ended();
    expect(log.steps).toContain('widget-success');
    expect(log.status).toContain('status: SUCCESSFUL');
    expect(problems).toEqual([]);
  });

  it('pays on chain in the sandbox: the full amount, confirming to paid', async () => {
    const problems = await open(360, '/demo', 1700);
    await startPayment('10.00');
    const frame = await payOnChain();
    await frame.getByRole('button', { name: 'Send the full amount' }).press('Enter');
    await frame.locator('#progress', { hasText: /of 3 confirmations/ }).waitFor();
    await frame.getByRole('heading', { name: 'Payment received. Thank you.' }).waitFor();
    const log = await ended();
    expect(log.steps).toContain('widget-success');
    await expectNoSidewaysScroll(page);
    expect(problems).toEqual([]);
  });

  it('fails through /demo on a phone: fail, the callback to errorUrl, FAILED', async () => {
    const problems = await open(360, '/demo');
    await expectNoSidewaysScroll(page);
    const key = await startPayment('7.10');
    const frame = page.frameLocator('#widget-container iframe');
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByLabel('Failed').check();
    await frame.getByLabel('Reason').selectOption('DECLINED');
    await frame.getByRole('button', { name: 'Confirm outcome' }).click();

    const log = await ended();
    expect(log.steps).toEqual([
      'init-iframe',
      'widget',
      'widget-fail',
      'widget-complete',
      'callback',
      'status',
    ]);
    expect(log.callback).toContain('callback to its errorUrl, signature verified');
    expect(log.callback).toContain('"status": "FAILED"');
    expect(log.status).toContain(
      'status: FAILED, detailedStatus: DECLINED, errorMessage: Payment declined',
    );
    await expectNoSidewaysScroll(page);
    await expectDelivered(key, 'error');
    expect(problems).toEqual([]);
  });
});
