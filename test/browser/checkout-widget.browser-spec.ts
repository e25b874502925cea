import { jest } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import {
  checkoutSeed,
  initIframeBody,
  SHOP_KEY,
  SHOP_SECRET,
  tokenFor,
} from '../support/checkout.js';
import {
  BROWSER_TEST_TIMEOUT_MS,
  launchChromium,
  openPage,
  STEP_TIMEOUT_MS,
} from '../support/browser.js';
import { http, startTestApp, TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** Screenshots of the page for docs/checkout.md, made here so that they stay true. */
const SCREENSHOTS = 'docs/images';

/**
 * A merchant's page on another origin (its own loopback port), embedding the widget exactly as
 * integrations do: the script from the service, then showPaymentIframe with the token. What the
 * widget calls is written into the page, where the test reads it.
 */
async function merchantSite(serviceUrl: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const token = new URL(request.url ?? '/', 'http://x').searchParams.get('token') ?? '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><title>Shop</title>
<script src="${serviceUrl}/widgets/sgpg.js"></script></head>
<body><h1>Shop</h1><div id="widget-container"></div><ol id="events"></ol>
<script>
  function note(name) { return function (detail) {
    var li = document.createElement('li'); li.textContent = name + ':' + JSON.stringify(detail);
    document.getElementById('events').appendChild(li); }; }
  window.showPaymentIframe('widget-container', { token: ${JSON.stringify(token)},
    success: note('success'), fail: note('fail'), cancel: note('cancel'), complete: note('complete') });
</script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('the payment widget from another origin (browser)', () => {
  let browser: Browser;
  let sandbox: TestApp;
  let shortLived: TestApp;
  let receiver: WebhookReceiver;
  let shop: { server: Server; origin: string };
  let shortShop: { server: Server; origin: string };
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    receiver = await WebhookReceiver.start();
    [sandbox, shortLived] = await Promise.all([
      startTestApp({ AUTH_MODE: 'api-key', CHECKOUT_SANDBOX: 'true' }),
      startTestApp({
        AUTH_MODE: 'api-key',
        CHECKOUT_SANDBOX: 'true',
        CHECKOUT_TOKEN_TTL_SECONDS: '2',
        CHECKOUT_EXPIRY_SWEEP_SECONDS: '1',
      }),
    ]);
    shop = await merchantSite(sandbox.url);
    shortShop = await merchantSite(shortLived.url);
    // The shop's origin may frame the page (its callbacks go to the receiver's origin).
    await sandbox.seed(checkoutSeed([shop.origin]));
    await shortLived.seed(checkoutSeed([shortShop.origin]));
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([sandbox?.close(), shortLived?.close(), receiver?.close()]);
    await Promise.all(
      [shop, shortShop].map((s) => s && new Promise((resolve) => s.server.close(resolve))),
    );
  });
  beforeEach(async () => {
    page = await openPage(browser, { viewport: { width: 360, height: 740 } });
  });
  afterEach(async () => {
    await page?.close();
  });

  async function open(app: TestApp, site: { origin: string }, key: string) {
    const token = await tokenFor(app.url, initIframeBody(key, receiver.url));
    await page.goto(`${site.origin}/?token=${token}`);
    const frame = page.frameLocator('#widget-container iframe');
    await frame.locator('h1').waitFor();
    return { token, frame };
  }

  const events = () => page.locator('#events li').allInnerTexts();
  const lookup = (app: TestApp, key: string) =>
    http(`${app.url}/api/gateway/payment-status/${key}`, { headers: { key: SHOP_KEY } });

  async function ended(app: TestApp, key: string, path: string) {
    await page.locator('#events li', { hasText: 'complete:' }).waitFor();
    await receiver.waitFor(() =>
      receiver.to(path).some((d) => JSON.parse(d.body).validationKey === key),
    );
    const callback = receiver.to(path).find((d) => JSON.parse(d.body).validationKey === key)!;
    expect(receiver.verifies(callback, SHOP_SECRET)).toBe(true);
    return (await lookup(app, key)).body.payload[0];
  }

  it('pays: success then complete, the signed callback, SUCCESSFUL with the request in it', async () => {
    const { frame } = await open(sandbox, shop, 'vk_br_paid');
    await page.screenshot({ path: `${SCREENSHOTS}/checkout-choose.png`, fullPage: true });
    // By keyboard, as a person without a mouse would.
    await frame.getByLabel('Tether (USDT) on TRC20').check();
    await frame.getByRole('button', { name: 'Continue' }).press('Enter');
    await frame.getByRole('heading', { name: /You pay with USDT on TRC20/ }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/checkout-outcome.png`, fullPage: true });
    await frame.getByLabel('Paid').check();
    await frame.getByRole('button', { name: 'Confirm outcome' }).click();
    const status = await ended(sandbox, 'vk_br_paid', '/return');
    expect(await events()).toEqual([
      'success:{"status":"SUCCESSFUL"}',
      'complete:{"status":"SUCCESSFUL"}',
    ]);
    expect(status).toMatchObject({
      status: 'SUCCESSFUL',
      paymentResponse: {
        traceId: 'order-9001',
        clientReference: 'cust-42',
        paymentMethod: 'USDT/TRC20',
        customerFirstName: 'Ann',
        customerCountryCode: 'IE',
        money: { amount: 10, currency: 'EUR', presentationAmount: 'EUR10.00' },
      },
    });
    await frame.getByRole('heading', { name: 'Payment received. Thank you.' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/checkout-paid.png`, fullPage: true });
  });

  it('fails with a reason: fail then complete', async () => {
    const { frame } = await open(sandbox, shop, 'vk_br_failed');
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByLabel('Failed').check();
    await frame.getByLabel('Reason').selectOption('INSUFFICIENT_FUNDS');
    await frame.getByRole('button', { name: 'Confirm outcome' }).click();
    const status = await ended(sandbox, 'vk_br_failed', '/error');
    expect(await events()).toEqual([
      'fail:{"status":"FAILED","detailedStatus":"INSUFFICIENT_FUNDS"}',
      'complete:{"status":"FAILED","detailedStatus":"INSUFFICIENT_FUNDS"}',
    ]);
    expect(status).toEqual({
      status: 'FAILED',
      errorMessage: 'Insufficient funds',
      detailedStatus: 'INSUFFICIENT_FUNDS',
    });
  });

  it('cancels: cancel then complete, NOT_COMPLETED (ABANDONED_BY_USER)', async () => {
    const { frame } = await open(sandbox, shop, 'vk_br_cancelled');
    await frame.getByRole('button', { name: 'Cancel payment' }).click();
    const status = await ended(sandbox, 'vk_br_cancelled', '/error');
    expect(await events()).toEqual([
      'cancel:{"status":"NOT_COMPLETED","detailedStatus":"ABANDONED_BY_USER"}',
      'complete:{"status":"NOT_COMPLETED","detailedStatus":"ABANDONED_BY_USER"}',
    ]);
    expect(status).toEqual({ status: 'NOT_COMPLETED', detailedStatus: 'ABANDONED_BY_USER' });
  });

  it('expires: the page says so; fail then complete; NOT_COMPLETED (EXPIRED)', async () => {
    const { frame } = await open(shortLived, shortShop, 'vk_br_expired');
    await frame.getByRole('heading', { name: 'This payment has expired.' }).waitFor();
    const status = await ended(shortLived, 'vk_br_expired', '/error');
    expect(await events()).toEqual([
      'fail:{"status":"NOT_COMPLETED","detailedStatus":"EXPIRED"}',
      'complete:{"status":"NOT_COMPLETED","detailedStatus":"EXPIRED"}',
    ]);
    expect(status).toEqual({ status: 'NOT_COMPLETED', detailedStatus: 'EXPIRED' });
  });

  it('speaks German when languagePreference asks for it', async () => {
    const token = await tokenFor(
      sandbox.url,
      initIframeBody('vk_br_german', receiver.url, { languagePreference: 'de-AT' }),
    );
    await page.goto(`${shop.origin}/?token=${token}`);
    const frame = page.frameLocator('#widget-container iframe');
    await frame.getByRole('button', { name: 'Zahlung abbrechen' }).waitFor();
    expect(await frame.locator('html').getAttribute('lang')).toBe('de');
  });

  it('refuses to be framed by an origin the session does not allow (CSP frame-ancestors)', async () => {
    // Same service, a shop whose origin is not allowed for sessions of shortLived's merchant.
    const token = await tokenFor(sandbox.url, initIframeBody('vk_br_framed', receiver.url));
    const stranger = await merchantSite(sandbox.url);
    try {
      const blocked: string[] = [];
      page.on('console', (message) => {
        if (/frame-ancestors/.test(message.text())) blocked.push(message.text());
      });
      await page.goto(`${stranger.origin}/?token=${token}`);
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while (blocked.length === 0 && Date.now() < deadline) await page.waitForTimeout(100);
      expect(blocked.length).toBeGreaterThan(0);
      // The blocked frame shows no checkout page: its document never loaded.
      const frame = page.frames().find((f) => f.url().includes('/checkout/'));
      expect(frame ? await frame.locator('h1').count() : 0).toBe(0);
      expect(await events()).toEqual([]);
    } finally {
      await new Promise((resolve) => stranger.server.close(resolve));
    }
  });
});
