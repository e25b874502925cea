import { DELIVERY_LIMITS } from '../src/callbacks/delivery-lanes.js';
import { adminHeaders, callbacksOf, http, startTestApp, TestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Receivers that accept a callback and never answer hold an attempt until its time limit (10 s
 * here, the default). A merchant whose receiver answers is delivered to while they hang: before
 * any of their attempts has ended, whether the hanging callbacks are one merchant's or one each
 * of many merchants'. No merchant has more than its share of attempts open at once.
 */

const put = (t: TestApp, key: string, body: object) =>
  http(`${t.url}/admin/payment-sessions/${key}`, { method: 'PUT', headers: adminHeaders, body });

async function merchant(t: TestApp, id: string) {
  const r = await http(`${t.url}/admin/merchants`, {
    method: 'POST',
    headers: adminHeaders,
    body: { id, name: id },
  });
  expect(r.status).toBe(201);
}

/** A callback to `url` for merchant `merchantId` (a FAILED report calls the return URL). */
async function callback(t: TestApp, key: string, merchantId: string, url: string) {
  const r = await put(t, key, {
    merchantId,
    status: 'FAILED',
    errorMessage: 'Declined',
    returnUrl: url,
  });
  expect(r.status).toBe(201);
}

describe.each([
  ['of one merchant', 60, (i: number) => `slow-${i % 1}`],
  ['of one merchant each', DELIVERY_LIMITS.inFlight + 16, (i: number) => `slow-${i}`],
])('a healthy merchant beside callbacks hanging at their receiver, %s (e2e)', (_what, n, owner) => {
  let t: TestApp;
  let hanging: WebhookReceiver;
  let healthy: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({ CALLBACK_TIMEOUT_MS: '10000' });
    [hanging, healthy] = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start()]);
    hanging.answer('/hang', ...Array.from({ length: n }, () => 'hang' as const));
    for (const id of new Set(Array.from({ length: n }, (_, i) => owner(i)))) await merchant(t, id);
    await merchant(t, 'healthy');
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([hanging.close(), healthy.close()]);
  });

  it('delivers the healthy callback while every hanging attempt is still open', async () => {
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        callback(t, `vk_hang_${i}`, owner(i), `${hanging.url}/hang`),
      ),
    );
    // The hanging receiver holds the first of them before the healthy one is reported.
    await hanging.waitFor(() => hanging.to('/hang').length >= Math.min(n, 8));
    await callback(t, 'vk_healthy', 'healthy', `${healthy.url}/ok`);
    await healthy.waitFor(() => healthy.to('/ok').length === 1, 9000);

    // No hanging attempt has ended yet (they run out of time after 10 s): the healthy callback
    // did not wait for a place to be freed by one of them.
    const settled = await Promise.all(
      Array.from({ length: n }, (_, i) => callbacksOf(t.url, `vk_hang_${i}`)),
    );
    expect(settled.every((r) => r.body.payload[0].attempts.length === 0)).toBe(true);
    const delivered = await callbacksOf(t.url, 'vk_healthy');
    expect(delivered.body.payload[0]).toMatchObject({ state: 'delivered' });
  });

  it('never lets one merchant hold more than its share of attempts open at once', () => {
    const perMerchant = new Map<string, number>();
    for (const delivery of hanging.to('/hang')) {
      const key = JSON.parse(delivery.body).validationKey as string;
      const id = owner(Number(key.replace('vk_hang_', '')));
      perMerchant.set(id, (perMerchant.get(id) ?? 0) + 1);
    }
    expect(Math.max(...perMerchant.values())).toBeLessThanOrEqual(DELIVERY_LIMITS.perMerchant);
  });
});
