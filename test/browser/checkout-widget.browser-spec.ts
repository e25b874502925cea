import { jest } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  checkoutSeed,
  initIframeBody,
  SHOP_KEY,
  SHOP_SECRET,
  tokenFor,
} from '../support/checkout.js';
import { BROWSER_TEST_TIMEOUT_MS, launchChromium, openPage } from '../support/browser.js';
import { merchantSite, type MerchantSite } from '../support/merchant-site.js';
import { http, startTestApp, TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** Screenshots of the page for docs/checkout.md, made here so that they stay true. */
const SCREENSHOTS = 'docs/images';

/** What the widget tells the merchant's page of a checkout page that cannot load. */
const UNAVAILABLE_FAIL = 'fail:{"status":"NOT_COMPLETED","detailedStatus":"UNAVAILABLE"}';
const UNAVAILABLE_COMPLETE = 'complete:{"status":"NOT_COMPLETED","detailedStatus":"UNAVAILABLE"}';

describe('the payment widget from another origin (browser)', () => {
  let browser: Browser;
  let sandbox: TestApp;
  let shortLived: TestApp;
  let receiver: WebhookReceiver;
  let shop: MerchantSite;
  let shortShop: MerchantSite;
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
    await Promise.all([shop?.close(), shortShop?.close()]);
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

  it('shows a spent token as unavailable: the page says how it ended; fail UNAVAILABLE then complete', async () => {
    const { token, frame } = await open(sandbox, shop, 'vk_br_spent');
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByLabel('Paid').check();
    await frame.getByRole('button', { name: 'Confirm outcome' }).click();
    await ended(sandbox, 'vk_br_spent', '/return');
    expect(await events()).toEqual([
      'success:{"status":"SUCCESSFUL"}',
      'complete:{"status":"SUCCESSFUL"}',
    ]);
    // The shop's page opened again with the same token, once the payment ended.
    await page.goto(`${shop.origin}/?token=${token}`);
    await page.locator('#events li', { hasText: 'complete:' }).waitFor({ timeout: 10_000 });
    expect(await events()).toEqual([UNAVAILABLE_FAIL, UNAVAILABLE_COMPLETE]);
    await frame.getByRole('heading', { name: 'Payment received. Thank you.' }).waitFor();
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

  it('refuses to be framed by an origin the session does not allow (CSP frame-ancestors): fail UNAVAILABLE then complete, never a blank box', async () => {
    // Same service, a shop whose origin is not allowed for sessions of shortLived's merchant.
    const token = await tokenFor(sandbox.url, initIframeBody('vk_br_framed', receiver.url));
    const stranger = await merchantSite(sandbox.url);
    try {
      const blocked: string[] = [];
      page.on('console', (message) => {
        if (/frame-ancestors/.test(message.text())) blocked.push(message.text());
      });
      await page.goto(`${stranger.origin}/?token=${token}`);
      // The widget gives up on a page that never answers within 10 s, and says so.
      await page.locator('#events li', { hasText: 'complete:' }).waitFor({ timeout: 10_000 });
      expect(await events()).toEqual([UNAVAILABLE_FAIL, UNAVAILABLE_COMPLETE]);
      expect(blocked.length).toBeGreaterThan(0);
      // The frame gave way to a sentence in the merchant's page.
      expect(await page.locator('#widget-container iframe').count()).toBe(0);
      expect(await page.locator('#widget-container [role="alert"]').innerText()).toBe(
        'This payment cannot be shown. Return to the shop and try again.',
      );
      // The session itself is untouched.
      expect((await lookup(sandbox, 'vk_br_framed')).body.payload[0].status).toBe('PENDING');
    } finally {
      await stranger.close();
    }
  });

  it('shows an unknown token as unavailable: the page says so; fail UNAVAILABLE then complete within 10 s', async () => {
    await page.goto(`${shop.origin}/?token=ct_${'q'.repeat(43)}`);
    await page.locator('#events li', { hasText: 'complete:' }).waitFor({ timeout: 10_000 });
    expect(await events()).toEqual([UNAVAILABLE_FAIL, UNAVAILABLE_COMPLETE]);
    const frame = page.frameLocator('#widget-container iframe');
    await frame.getByRole('heading', { name: 'This payment cannot be shown' }).waitFor();
    expect(await frame.locator('.notice').innerText()).toBe(
      'No payment is open with this link. Return to the shop to start again.',
    );
  });
});
