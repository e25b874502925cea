import { jest } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32 } from '@scure/base';
import jsqr from 'jsqr';
import type { Browser, Frame, FrameLocator, Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, launchChromium, openPage } from '../support/browser.js';
import { checkoutSeed, initIframeBody, SHOP_KEY, tokenFor } from '../support/checkout.js';
import { decodeQrCode, freshAccount } from '../support/deposits.js';
import { merchantSite, type MerchantSite } from '../support/merchant-site.js';
import { adminHeaders, createOperator, http, startTestApp, TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

jest.setTimeout(BROWSER_TEST_TIMEOUT_MS);

/** Screenshots of the payment step for docs/checkout.md, made here so that they stay true. */
const SCREENSHOTS = 'docs/images';

/** Bitcoin as the operator settles it here: 8 decimals, 3 confirmations. */
const BITCOIN = { network: 'bitcoin', decimals: 8, confirmations: 3 };
/** 10.00 EUR at 90,000 EUR per BTC: 0.000111111… BTC, rounded up to 8 decimals. */
const DUE_BTC = '0.00011112';
const DUE_SATS = 11112;

let txids = 0;
const txid = () => `${(++txids).toString(16).padStart(8, '0')}${'b'.repeat(56)}`;

/**
 * The receive address `index` of a BIP84 account, derived here from the wallet's own node with
 * the audited primitives (HASH160 of the public key, bech32 v0), not by the gateway's code.
 */
function bip84Address(node: ReturnType<typeof freshAccount>['node'], index: number): string {
  const child = node.deriveChild(0).deriveChild(index);
  const hash = ripemd160(sha256(child.publicKey!));
  return bech32.encode('bc', [0, ...bech32.toWords(hash)]);
}

/** Which of the account's first receive addresses `address` is (-1: none of them). */
function receiveIndex(node: ReturnType<typeof freshAccount>['node'], address: string): number {
  return Array.from({ length: 10 }, (_, i) => bip84Address(node, i)).indexOf(address);
}

/** The page's width is its viewport's: nothing makes a phone scroll sideways. */
async function expectNoSidewaysScroll(frame: Page | Frame): Promise<void> {
  const [scrollWidth, width] = await frame.evaluate<number[]>(
    '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
  );
  expect(scrollWidth).toBeLessThanOrEqual(width);
}

/**
 * The QR code as the browser shows it: the page's image drawn on a canvas in the page, its
 * pixels read by a QR decoder (jsqr) here.
 */
async function qrCodeShown(frame: Frame): Promise<string | undefined> {
  const size = 320;
  const pixels = await frame.evaluate<number[]>(`(() => {
    const img = document.querySelector('img.qr-code');
    const canvas = document.createElement('canvas');
    canvas.width = ${size}; canvas.height = ${size};
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, ${size}, ${size});
    context.drawImage(img, 0, 0, ${size}, ${size});
    return Array.from(context.getImageData(0, 0, ${size}, ${size}).data);
  })()`);
  return jsqr.default(new Uint8ClampedArray(pixels), size, size)?.data;
}

describe('paying a checkout on chain, in production, from a merchant page (browser)', () => {
  let browser: Browser;
  let app: TestApp;
  let short: TestApp;
  let receiver: WebhookReceiver;
  let shop: MerchantSite;
  let shortShop: MerchantSite;
  let page: Page;
  const wallets = { app: freshAccount('bitcoin'), short: freshAccount('bitcoin') };
  const watchers: Record<string, Record<string, string>> = {};

  /**
   * Makes checkoutSeed's BTC pair of Ireland payable for `shop` on `t`, as an operator would:
   * its settlement, the merchant's zpub, a price in euro. The USDT pair stays unpayable.
   */
  async function payable(t: TestApp, zpub: string) {
    const admin = (path: string, method: string, body?: unknown) =>
      http(`${t.url}${path}`, { method, headers: adminHeaders, body });
    const listed = await admin(
      '/admin/crypto-pairs?currencyCode=BTC&protocol=BITCOIN&countryCode=IE',
      'GET',
    );
    const [pair] = listed.body.payload as { id: number }[];
    const settled = await admin(`/admin/crypto-pairs/${pair.id}`, 'PATCH', {
      settlement: BITCOIN,
    });
    expect(settled.status).toBe(200);
    const key = await admin('/admin/merchants/shop/deposit-keys/bitcoin', 'PUT', {
      extendedPublicKey: zpub,
    });
    expect(key.status).toBe(200);
    const rate = await admin('/admin/rates/BTC', 'PUT', { fiat: 'EUR', price: '90000' });
    expect(rate.status).toBe(200);
    const operator = await createOperator(t, 'watcher-bitcoin', 'payments');
    watchers[t.url] = { authorization: `Bearer ${operator.token}` };
  }

  /** A deposit as a watcher reports it, with the watcher's operator token (role payments). */
  async function report(t: TestApp, deposit: Record<string, unknown>) {
    const answer = await http(`${t.url}/admin/deposits`, {
      method: 'POST',
      headers: watchers[t.url],
      body: { network: 'bitcoin', index: 0, asset: 'native', ...deposit },
    });
    expect(answer.status).toBe(200);
    return answer.body.payload[0];
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [browser, app, short] = await Promise.all([
      launchChromium(),
      // Production (no sandbox); quotes of 8 s, so that one is renewed while the page is open.
      startTestApp({ AUTH_MODE: 'api-key', QUOTE_TTL_SECONDS: '8' }),
      // Checkouts of 15 s, to see an underpaid one expire; quotes as by default (no renewal).
      startTestApp({
        AUTH_MODE: 'api-key',
        CHECKOUT_TOKEN_TTL_SECONDS: '15',
        CHECKOUT_EXPIRY_SWEEP_SECONDS: '1',
      }),
    ]);
    [shop, shortShop] = await Promise.all([merchantSite(app.url), merchantSite(short.url)]);
    await app.seed(checkoutSeed([shop.origin]));
    await short.seed(checkoutSeed([shortShop.origin]));
    await payable(app, wallets.app.publicKey);
    await payable(short, wallets.short.publicKey);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([app?.close(), short?.close(), receiver?.close()]);
    await Promise.all([shop?.close(), shortShop?.close()]);
  });
  afterEach(async () => {
    await page?.close();
  });

  const events = () => page.locator('#events li').allInnerTexts();
  const lookup = (t: TestApp, key: string) =>
    http(`${t.url}/api/gateway/payment-status/${key}`, { headers: { key: SHOP_KEY } });

  /** Opens the shop's page with a new checkout and chooses bitcoin in the widget's page. */
  async function choose(t: TestApp, site: MerchantSite, key: string) {
    page = await openPage(browser, {
      // A phone's width; tall enough for the whole payment step, since a full-page screenshot
      // draws a frame of another origin only within the viewport.
      viewport: { width: 360, height: 1300 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) {
        problems.push(`${message.text()} (${message.location().url})`);
      }
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const token = await tokenFor(t.url, initIframeBody(key, receiver.url));
    await page.goto(`${site.origin}/?token=${token}`);
    const frame = page.frameLocator('#widget-container iframe');
    // Only the pair that can be paid on chain is offered.
    const offered = frame.getByRole('radio');
    await offered.first().waitFor();
    expect(await offered.count()).toBe(1);
    await frame.getByLabel('Bitcoin (BTC) on BITCOIN').check();
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByRole('heading', { name: /You pay with BTC on BITCOIN/ }).waitFor();
    await frame.locator('#progress').waitFor();
    const frameOf = () => page.frames().find((f) => f.url().includes('/checkout/'))!;
    return { token, frame, frameOf, problems };
  }

  /** The page's progress text once it matches. */
  async function progressSays(frame: FrameLocator, text: RegExp | string) {
    await frame.locator('#progress', { hasText: text }).waitFor();
    return frame.locator('#progress').innerText();
  }

  it('shows what to send where (the QR code holds it), counts down and renews the quote, follows the transfer to paid: success', async () => {
    const { token, frame, frameOf, problems } = await choose(app, shop, 'vk_pay_paid');
    // The amount, the asset and the network, the address: from the zpub the merchant registered,
    // derived here independently; the first address of a new key.
    const address = bip84Address(wallets.app.node, 0);
    expect(await frame.locator('#pay-title').innerText()).toBe(
      `Send exactly ${DUE_BTC} BTC on Bitcoin to this address:`,
    );
    expect(await frame.locator('#pay-amount').innerText()).toBe(DUE_BTC);
    expect(await frame.locator('#pay-address').innerText()).toBe(address);
    expect(await frame.getByRole('note').first().innerText()).toBe(
      'Send only BTC on Bitcoin. Another asset, or BTC on another network, is lost.',
    );
    expect(await progressSays(frame, 'Waiting')).toBe(
      'Waiting for your transfer. This page updates by itself.',
    );
    expect(await frame.locator('#progress').getAttribute('aria-live')).toBe('polite');
    // The QR code: the BIP21 URI of the service's view, with the independently derived address,
    // read from the image as the browser drew it and from the SVG the page names.
    const uri = `bitcoin:${address}?amount=${DUE_BTC}`;
    const state = await http(`${app.url}/checkout/${token}/status`);
    expect(state.body.payload[0].payment.paymentUri).toBe(uri);
    expect(await qrCodeShown(frameOf())).toBe(uri);
    const src = await frame.locator('img.qr-code').getAttribute('src');
    expect(src).toBe(`/checkout/${token}/qr.svg`);
    expect(decodeQrCode((await http(`${app.url}${src}`)).text)).toBe(uri);
    // The countdown runs; at its end the page shows the renewed quote, same amount and address.
    const firstQuote = await frame.locator('.quote time').getAttribute('datetime');
    expect(await frame.locator('#quote-left').innerText()).toMatch(/^ ?\(0:0\d left\)$/);
    await page.screenshot({ path: `${SCREENSHOTS}/checkout-payment.png`, fullPage: true });
    await frame.locator(`.quote time:not([datetime="${firstQuote}"])`).waitFor();
    expect(await frame.locator('#pay-amount').innerText()).toBe(DUE_BTC);
    expect(await frame.locator('#pay-address').innerText()).toBe(address);
    await expectNoSidewaysScroll(page);
    await expectNoSidewaysScroll(frameOf());

    // The watcher sees the transfer in the mempool, then confirming, then confirmed.
    const transfer = { address, txid: txid(), amount: String(DUE_SATS) };
    expect(await report(app, { ...transfer, confirmations: 0 })).toMatchObject({ counted: false });
    expect(await progressSays(frame, 'seen')).toBe('Transfer seen: 0 of 3 confirmations.');
    await frame.locator('#quote-note', { hasText: 'this amount stands' }).waitFor();
    await report(app, { ...transfer, confirmations: 1 });
    expect(await progressSays(frame, '1 of 3')).toBe('Transfer seen: 1 of 3 confirmations.');
    await page.screenshot({ path: `${SCREENSHOTS}/checkout-confirming.png`, fullPage: true });
    await report(app, { ...transfer, confirmations: 3 });
    await frame.getByRole('heading', { name: 'Payment received. Thank you.' }).waitFor();
    await page.locator('#events li', { hasText: 'complete:' }).waitFor();
    expect(await events()).toEqual([
      'success:{"status":"SUCCESSFUL"}',
      'complete:{"status":"SUCCESSFUL"}',
    ]);
    await page.screenshot({ path: `${SCREENSHOTS}/checkout-payment-paid.png`, fullPage: true });
    expect((await lookup(app, 'vk_pay_paid')).body.payload[0]).toMatchObject({
      status: 'SUCCESSFUL',
      paymentResponse: { paymentMethod: 'BTC/BITCOIN' },
    });
    expect(problems).toEqual([]);
  });

  it('is used by keyboard: the copy buttons are reachable, named, and copy', async () => {
    // On the app whose quotes are not renewed while the keys are pressed (a renewal reloads).
    const { frame } = await choose(short, shortShop, 'vk_pay_keys');
    const address = await frame.locator('#pay-address').innerText();
    expect(receiveIndex(wallets.short.node, address)).toBeGreaterThanOrEqual(0);
    // Tab from the top of the page to each copy button; Enter copies and the page says so.
    const focused = async () =>
      (await frame.locator(':focus').count()) === 1
        ? ((await frame.locator(':focus').getAttribute('aria-label')) ?? '')
        : '';
    async function tabTo(name: string) {
      for (let i = 0; i < 20 && (await focused()) !== name; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(name);
    }
    await frame.locator('h1').click();
    await tabTo('Copy the amount');
    await page.keyboard.press('Enter');
    await frame.locator('#live', { hasText: 'Amount copied.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(DUE_BTC);
    await tabTo('Copy the address');
    await page.keyboard.press('Enter');
    await frame.locator('#live', { hasText: 'Address copied.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(address);
    expect(await frame.getByRole('button', { name: 'Copy the amount' }).getAttribute('type')).toBe(
      'button',
    );
    expect(await frame.getByRole('img', { name: /QR code of this payment/ }).count()).toBe(1);
  });

  it('underpaid: shows what arrived and what is left; at expiry FAILED (UNDERPAID): fail; a late deposit is flagged', async () => {
    const { frame } = await choose(short, shortShop, 'vk_pay_under');
    const address = await frame.locator('#pay-address').innerText();
    expect(receiveIndex(wallets.short.node, address)).toBeGreaterThanOrEqual(0);
    await report(short, { address, txid: txid(), amount: '5000', confirmations: 3 });
    expect(await progressSays(frame, 'Received')).toBe(
      'Received 0.00005 BTC: 0.00006112 BTC is still missing. Send it to the same address.',
    );
    // The checkout expires short of the quote.
    await frame
      .getByRole('heading', { name: /The payment failed\. Less than the amount due/ })
      .waitFor();
    await page.locator('#events li', { hasText: 'complete:' }).waitFor();
    expect(await events()).toEqual([
      'fail:{"status":"FAILED","detailedStatus":"UNDERPAID"}',
      'complete:{"status":"FAILED","detailedStatus":"UNDERPAID"}',
    ]);
    expect((await lookup(short, 'vk_pay_under')).body.payload[0]).toMatchObject({
      status: 'FAILED',
      detailedStatus: 'UNDERPAID',
    });
    // The rest arrives after the end: stored, flagged, never counted, the session unchanged.
    const late = { address, txid: txid(), amount: '6112', confirmations: 1 };
    expect(await report(short, late)).toMatchObject({
      counted: false,
      flag: 'LATE',
      session: { status: 'FAILED' },
    });
    const flagged = await http(`${short.url}/admin/deposits?flagged=true`, {
      headers: adminHeaders,
    });
    expect(flagged.status).toBe(200);
    expect(flagged.body.payload).toEqual(
      expect.arrayContaining([expect.objectContaining({ txid: late.txid, address, flag: 'LATE' })]),
    );
  });
});
