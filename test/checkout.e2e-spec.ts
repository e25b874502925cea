import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import {
  OTHER_SHOP_KEY,
  SHOP_KEY,
  SHOP_SECRET,
  act,
  checkoutSeed,
  initIframe,
  initIframeBody,
  openPage,
  makePayable,
  tokenFor,
} from './support/checkout.js';
import {
  adminHeaders,
  createOperator,
  expectEnvelope,
  http,
  startTestApp,
  TEST_DIALECT,
  TestApp,
} from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const lookup = (t: TestApp, key: string) =>
  http(`${t.url}/api/gateway/payment-status/${encodeURIComponent(key)}`, {
    headers: { key: SHOP_KEY },
  });

/** The status lookup once it no longer answers PENDING (the expiry job runs in the background). */
/** On SQLite, neither the database file nor its log holds `text` (on PostgreSQL: not checked). */
function expectNotInDatabaseFiles(t: TestApp, text: string): void {
  if (TEST_DIALECT !== 'sqlite') return;
  for (const file of ['gateway.sqlite', 'gateway.sqlite-wal']) {
    const path = join(t.dir, file);
    const bytes = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
    expect({ file, holds: bytes.includes(text) }).toEqual({ file, holds: false });
  }
}

async function lookupWhenEnded(t: TestApp, key: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let answer = await lookup(t, key);
  while (answer.body?.payload?.[0]?.status === 'PENDING' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await lookup(t, key);
  }
  return answer;
}

describe('checkout (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp(
      {
        AUTH_MODE: 'api-key',
        CHECKOUT_SANDBOX: 'true',
        CALLBACK_RETRY_SCHEDULE: '1',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
      { captureLogs: true },
    );
    await t.seed(checkoutSeed());
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  describe('POST /api/gateway/init-iframe', () => {
    it('answers the token as integrations read it and creates the PENDING session', async () => {
      const answer = await initIframe(t.url, initIframeBody('vk_co_new', receiver.url));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.body).toEqual({
        payload: [
          { traceId: 'order-9001', initializationToken: expect.stringMatching(/^ct_[\w-]{43}$/) },
        ],
      });
      expect((await lookup(t, 'vk_co_new')).body).toEqual({ payload: [{ status: 'PENDING' }] });
      // The token is stored only as its hash.
      expect(await t.dump()).not.toContain(answer.body.payload[0].initializationToken);
      const history = await http(`${t.url}/admin/payment-sessions/vk_co_new/history`, {
        headers: adminHeaders,
      });
      expect(history.body.payload).toEqual([
        expect.objectContaining({
          from: null,
          to: 'PENDING',
          by: { kind: 'merchant', id: 'shop' },
        }),
      ]);
    });

    it('refuses each broken field with its dotted path, and stores nothing', async () => {
      const body = initIframeBody('vk_co_broken', receiver.url, {
        money: { amount: '0', currency: 'EURO' },
        client: {
          ...(initIframeBody('x', receiver.url).client as object),
          emailAddress: 'not-an-email',
          dob: '2999-01-01',
        },
        address: { addressLine1: '1 Main St', city: 'Dublin' },
        returnUrl: 'ftp://shop.example/return',
        languagePreference: 'english!',
      });
      delete body.traceId;
      const answer = await initIframe(t.url, body);
      const errors = expectEnvelope(answer, 400, 'INVALID_PARAMETER');
      expect(errors.map((e) => e.field).sort()).toEqual(
        [
          'money.amount',
          'money.currency',
          'client.emailAddress',
          'client.dob',
          'address.countryCode',
          'traceId',
          'returnUrl',
          'languagePreference',
        ].sort(),
      );
      expectEnvelope(await lookup(t, 'vk_co_broken'), 404, 'TRANSACTION_FAILED');
    });

    it('says of every required field left out that it is required, and of a wrong one its rule', async () => {
      const body = initIframeBody('vk_co_missing', receiver.url, {
        money: { amount: '10.00' },
        client: { firstName: 'Ann' },
        address: { addressLine1: '1 Main St', countryCode: 'IE' },
      });
      for (const field of ['validationKey', 'traceId', 'brandId', 'destinationAccountNumber']) {
        delete body[field];
      }
      const errors = expectEnvelope(await initIframe(t.url, body), 400, 'INVALID_PARAMETER');
      const required = [
        'money.currency',
        'client.lastName',
        'client.phone',
        'client.dialingCode',
        'client.nationality',
        'client.emailAddress',
        'client.dob',
        'address.city',
        'validationKey',
        'traceId',
        'destinationAccountNumber',
        'brandId',
      ];
      expect(errors.map((e) => e.field).sort()).toEqual([...required].sort());
      for (const error of errors) expect(error.message).toMatch(/^is required: it must be /);
      // Whole objects left out, too; optional fields left out are no error.
      const bare = initIframeBody('vk_co_missing', receiver.url);
      delete bare.client;
      delete bare.errorUrl;
      delete bare.languagePreference;
      expect(expectEnvelope(await initIframe(t.url, bare), 400, 'INVALID_PARAMETER')).toEqual([
        expect.objectContaining({ field: 'client', message: 'is required: it must be an object' }),
      ]);
      // A field given wrong is told its rule alone.
      const wrong = initIframeBody('vk_co_missing', receiver.url, { traceId: '' });
      const [error] = expectEnvelope(await initIframe(t.url, wrong), 400, 'INVALID_PARAMETER');
      expect(error).toMatchObject({
        field: 'traceId',
        message: expect.stringMatching(/^must be /),
      });
    });

    it.each(['ABC', 'XXX', 'EURO', 'E1R', 'usdt', 'BTC'])(
      'refuses money.currency %j: not an ISO 4217 code',
      async (currency) => {
        const body = initIframeBody('vk_co_currency', receiver.url, {
          money: { amount: '10.00', currency },
        });
        const [error] = expectEnvelope(await initIframe(t.url, body), 400, 'INVALID_PARAMETER');
        expect(error).toEqual({
          type: 'VALIDATION',
          errorCode: 'INVALID_PARAMETER',
          field: 'money.currency',
          message: 'must be an ISO 4217 currency code such as EUR',
        });
      },
    );

    it.each(['EUR', 'usd', 'JPY', 'chf'])('takes money.currency %j', async (currency) => {
      const body = initIframeBody(`vk_co_currency_${currency}`, receiver.url, {
        money: { amount: '10.00', currency },
      });
      expect((await initIframe(t.url, body)).status).toBe(200);
    });

    it('takes null for the optional errorUrl and languagePreference as left out; a null required field is refused', async () => {
      const body = initIframeBody('vk_co_nulls', receiver.url, {
        errorUrl: null,
        languagePreference: null,
      });
      expect((await initIframe(t.url, body)).status).toBe(200);
      const detail = await http(`${t.url}/admin/payment-sessions/vk_co_nulls`, {
        headers: adminHeaders,
      });
      expect(detail.body.errorUrl).toBeUndefined();
      expect(detail.body.checkout.languagePreference).toBeUndefined();
      // The same request with the fields left out is the same request.
      const without = { ...body };
      delete without.errorUrl;
      delete without.languagePreference;
      expect((await initIframe(t.url, without)).status).toBe(200);
      const refused = await initIframe(
        t.url,
        initIframeBody('vk_co_null_req', receiver.url, { traceId: null }),
      );
      expect(expectEnvelope(refused, 400, 'INVALID_PARAMETER').map((e) => e.field)).toEqual([
        'traceId',
      ]);
    });

    it('takes amounts as decimal strings or numbers, stored exactly, and refuses 0 and three decimals', async () => {
      for (const [amount, ok] of [
        [10, true],
        ['0.01', true],
        [0.1, true],
        [0, false],
        ['-1', false],
        ['10.005', false],
        [0.30000000000000004, false],
        ['1e3', false],
      ] as const) {
        const key = `vk_co_amount_${String(amount).replace(/\W/g, '_')}`;
        const answer = await initIframe(
          t.url,
          initIframeBody(key, receiver.url, { money: { amount, currency: 'eur' } }),
        );
        if (ok) expect(answer.status).toBe(200);
        else expect(expectEnvelope(answer, 400, 'INVALID_PARAMETER')[0].field).toBe('money.amount');
      }
    });

    it('answers the same session and a new token to the same request; both open the page', async () => {
      const body = initIframeBody('vk_co_again', receiver.url);
      const first = await tokenFor(t.url, body);
      const second = await tokenFor(t.url, { ...body, money: { amount: 10, currency: 'EUR' } });
      expect(second).not.toBe(first);
      for (const token of [first, second]) {
        const { page } = await openPage(t.url, token);
        expect(page.status).toBe(200);
        expect(page.text).toContain('data-stage="choose"');
      }
    });

    it('answers identical requests sent at once alike: 200, one session, a token each', async () => {
      const body = initIframeBody('vk_co_same', receiver.url);
      const answers = await Promise.all(Array.from({ length: 20 }, () => initIframe(t.url, body)));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      const tokens = answers.map((answer) => answer.body.payload[0].initializationToken as string);
      expect(new Set(tokens).size).toBe(tokens.length);
      const history = await http(`${t.url}/admin/payment-sessions/vk_co_same/history`, {
        headers: adminHeaders,
      });
      expect(history.body.payload).toHaveLength(1);
      for (const token of tokens) {
        const { page } = await openPage(t.url, token);
        expect(page.status).toBe(200);
        expect(page.text).toContain('data-stage="choose"');
      }
    });

    it('is a 409 for another body, for a final session, and the same 409 for another merchant', async () => {
      const body = initIframeBody('vk_co_conflict', receiver.url);
      await tokenFor(t.url, body);
      const changed = await initIframe(t.url, { ...body, description: 'another order' });
      expectEnvelope(changed, 409, 'CONFLICT');
      const foreign = await initIframe(t.url, body, OTHER_SHOP_KEY);
      expectEnvelope(foreign, 409, 'CONFLICT');
      expect(foreign.text).toBe(changed.text);
      // A key of a session the operator made is in use the same way.
      await http(`${t.url}/admin/payment-sessions/vk_co_operator`, {
        method: 'PUT',
        headers: adminHeaders,
        body: { merchantId: 'other', status: 'PENDING' },
      });
      expect((await initIframe(t.url, initIframeBody('vk_co_operator', receiver.url))).text).toBe(
        changed.text,
      );
      // Final: the payment ended, a new one needs a new key.
      const token = await tokenFor(t.url, initIframeBody('vk_co_final', receiver.url));
      const { nonce } = await openPage(t.url, token);
      await act(t.url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' });
      const next = await openPage(t.url, token);
      expect(
        (await act(t.url, token, 'outcome', { nonce: next.nonce, outcome: 'paid' })).status,
      ).toBe(200);
      const final = await initIframe(t.url, initIframeBody('vk_co_final', receiver.url));
      expect(expectEnvelope(final, 409, 'CONFLICT')[0].message).toMatch(/SUCCESSFUL/);
    });

    it('survives a fuzzed body: never a 5xx, always the envelope, nothing stored', async () => {
      const valid = initIframeBody('vk_co_fuzz', receiver.url);
      const odd: unknown[] = [
        null,
        true,
        -1,
        1e308,
        '',
        ' ',
        'x'.repeat(5000),
        '\u0000\u0007',
        '\ud800',
        [],
        {},
        { $gt: '' },
      ];
      const paths = [
        ...Object.keys(valid),
        ...['amount', 'currency'].map((k) => `money.${k}`),
        ...Object.keys(valid.client as object).map((k) => `client.${k}`),
        ...Object.keys(valid.address as object).map((k) => `address.${k}`),
      ];
      const statuses = new Set<number>();
      for (const path of paths) {
        for (const value of [...odd, undefined]) {
          const body = structuredClone(valid) as Record<string, Record<string, unknown>>;
          const [head, tail] = path.split('.');
          const holder: Record<string, unknown> = tail ? body[head] : body;
          if (value === undefined) delete holder[tail ?? head];
          else holder[tail ?? head] = value;
          // Optional fields may go; a key turned odd is no longer vk_co_fuzz: stored nowhere else.
          const answer = await initIframe(t.url, body);
          statuses.add(answer.status);
          expect(answer.status).toBeLessThan(500);
          if (answer.status !== 200) {
            expect(answer.body.errors.length).toBeGreaterThan(0);
            for (const e of answer.body.errors) {
              expect(typeof e.errorCode).toBe('string');
              expect(typeof e.message).toBe('string');
            }
          }
        }
      }
      for (const raw of ['{', '[]', 'null', `{"money":${'['.repeat(40)}`, '{"__proto__":{}}']) {
        const answer = await http(`${t.url}/api/gateway/init-iframe`, {
          method: 'POST',
          headers: { key: SHOP_KEY, 'content-type': 'application/json' },
          rawBody: raw,
        });
        expectEnvelope(answer, 400, 'MALFORMED_REQUEST');
      }
      // 409: a body accepted with an optional field left out, then another body for the same key.
      expect([...statuses].sort()).toEqual([200, 400, 409]);
      // Only the bodies whose odd field is optional or ignored made the session.
      const listed = await http(`${t.url}/admin/payment-sessions?merchantId=shop&size=100`, {
        headers: adminHeaders,
      });
      const keys = listed.body.payload.map((s: { validationKey: string }) => s.validationKey);
      expect(keys.filter((k: string) => k.startsWith('vk_co_fuzz'))).toEqual(['vk_co_fuzz']);
      const dump = await t.dump();
      expect(dump).not.toContain('x'.repeat(5000));
    });

    it('needs the merchant key and api-version 1', async () => {
      const body = initIframeBody('vk_co_auth', receiver.url);
      expectEnvelope(
        await http(`${t.url}/api/gateway/init-iframe`, { method: 'POST', body }),
        401,
        'UNAUTHORIZED',
      );
      expectEnvelope(
        await http(`${t.url}/api/gateway/init-iframe`, {
          method: 'POST',
          headers: { key: SHOP_KEY, 'x-api-version': '2' },
          body,
        }),
        400,
        'UNSUPPORTED_API_VERSION',
      );
    });
  });

  describe('the checkout page and its actions', () => {
    it('pays in the sandbox: SUCCESSFUL made from the request, signed callback, token spent', async () => {
      const token = await tokenFor(t.url, initIframeBody('vk_co_paid', receiver.url));
      const { page, nonce } = await openPage(t.url, token);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain(`frame-ancestors ${new URL(receiver.url).origin}`);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers.get('x-frame-options')).toBeNull();
      // The merchant's name is escaped by the template engine; no personal data on the page.
      expect(page.text).toContain('Shop &amp; Co &lt;Ltd&gt;');
      expect(page.text).not.toContain('<Ltd>');
      for (const personal of [
        'Ann',
        'Lee',
        'ann.lee.checkout',
        '871234567',
        '1 Main St',
        'Dublin',
        '1990-01-31',
      ]) {
        expect(page.text).not.toContain(personal);
      }
      expect(page.text).toContain('value="USDT/TRC20"');
      expect(page.text).not.toContain('ETH/ERC20'); // disabled
      expect(page.text).not.toContain('USDC/BASE'); // another country

      const chosen = await act(t.url, token, 'pair', {
        nonce,
        currencyCode: 'USDT',
        protocol: 'TRC20',
      });
      expect(chosen.body).toEqual({ payload: [{ status: 'PENDING', stage: 'chosen' }] });
      // The nonce was single-use.
      const again = await act(t.url, token, 'outcome', { nonce, outcome: 'paid' });
      expectEnvelope(again, 403, 'FORBIDDEN');

      const next = await openPage(t.url, token);
      expect(next.nonce).not.toBe(nonce);
      const paid = await act(t.url, token, 'outcome', { nonce: next.nonce, outcome: 'paid' });
      expect(paid.body).toEqual({
        payload: [{ status: 'SUCCESSFUL', stage: 'ended', outcome: 'success' }],
      });

      const status = await lookup(t, 'vk_co_paid');
      expect(status.body.payload[0]).toEqual({
        status: 'SUCCESSFUL',
        paymentResponse: {
          sourceMoney: { amount: 10, currency: 'EUR', presentationAmount: 'EUR10.00' },
          destinationMoney: { amount: 10, currency: 'EUR', presentationAmount: 'EUR10.00' },
          totalFees: { amount: 0, currency: 'EUR', presentationAmount: 'EUR0.00' },
          money: { amount: 10, currency: 'EUR', presentationAmount: 'EUR10.00' },
          requestedMoney: { amount: 10, currency: 'EUR', presentationAmount: 'EUR10.00' },
          traceId: 'order-9001',
          description: 'order-9001',
          clientReference: 'cust-42',
          validationKey: 'vk_co_paid',
          responseCode: '00',
          transactionReference: expect.stringMatching(/^[0-9a-f-]{36}$/),
          paymentType: 'PAYMENT',
          paymentMethod: 'USDT/TRC20',
          accountNumber: '5001XXXXXXXX3369',
          customerDob: '1990-01-31',
          customerFirstName: 'Ann',
          customerLastName: 'Lee',
          senderEmailAddress: 'ann.lee.checkout@example.org',
          customerCountryCode: 'IE',
        },
      });
      await receiver.waitFor(() =>
        receiver.to('/return').some((d) => JSON.parse(d.body).validationKey === 'vk_co_paid'),
      );
      const callback = receiver
        .to('/return')
        .find((d) => JSON.parse(d.body).validationKey === 'vk_co_paid')!;
      expect(receiver.verifies(callback, SHOP_SECRET)).toBe(true);
      expect(
        new Webhook(SHOP_SECRET).verify(callback.body, {
          'webhook-id': callback.webhookId,
          'webhook-timestamp': callback.timestamp,
          'webhook-signature': callback.signature,
        }),
      ).toMatchObject({ status: 'SUCCESSFUL', traceId: 'order-9001' });

      // Spent: the page says how it ended and takes no action; loaded again, it tells the widget
      // only that the payment is unavailable. The page that saw it end read the outcome in the
      // action's answer, and its poll finds it in the status.
      const ended = await openPage(t.url, token);
      expect(ended.page.text).toContain('data-stage="ended"');
      expect(ended.page.text).toContain('data-outcome="fail"');
      expect(ended.page.text).toContain('data-status="NOT_COMPLETED"');
      expect(ended.page.text).toContain('data-detailed-status="UNAVAILABLE"');
      expect(ended.nonce).toBe('');
      const state = await http(`${t.url}/checkout/${token}/status`);
      expect(state.body.payload[0]).toEqual({
        status: 'SUCCESSFUL',
        stage: 'ended',
        outcome: 'success',
      });
      expectEnvelope(await act(t.url, token, 'cancel', { nonce: next.nonce }), 409, 'CONFLICT');
    });

    it('fails with a reason, and cancels', async () => {
      const failing = await tokenFor(t.url, initIframeBody('vk_co_failed', receiver.url));
      let { nonce } = await openPage(t.url, failing);
      await act(t.url, failing, 'pair', { nonce, currencyCode: 'BTC', protocol: 'BITCOIN' });
      ({ nonce } = await openPage(t.url, failing));
      const failed = await act(t.url, failing, 'outcome', {
        nonce,
        outcome: 'failed',
        reason: 'DECLINED',
      });
      expect(failed.body.payload[0]).toEqual({
        status: 'FAILED',
        stage: 'ended',
        outcome: 'fail',
        detailedStatus: 'DECLINED',
      });
      expect((await lookup(t, 'vk_co_failed')).body.payload[0]).toEqual({
        status: 'FAILED',
        errorMessage: 'Payment declined',
        detailedStatus: 'DECLINED',
      });

      const cancelling = await tokenFor(t.url, initIframeBody('vk_co_cancelled', receiver.url));
      ({ nonce } = await openPage(t.url, cancelling));
      const cancelled = await act(t.url, cancelling, 'cancel', { nonce });
      expect(cancelled.body.payload[0]).toEqual({
        status: 'NOT_COMPLETED',
        stage: 'ended',
        outcome: 'cancel',
        detailedStatus: 'ABANDONED_BY_USER',
      });
      expect((await lookup(t, 'vk_co_cancelled')).body.payload[0]).toEqual({
        status: 'NOT_COMPLETED',
        detailedStatus: 'ABANDONED_BY_USER',
      });
      await receiver.waitFor(() =>
        receiver.to('/error').some((d) => JSON.parse(d.body).validationKey === 'vk_co_cancelled'),
      );
    });

    it('refuses an action without a nonce, with a spent one, of an unknown token, of a pair not offered', async () => {
      const token = await tokenFor(t.url, initIframeBody('vk_co_refusals', receiver.url));
      const { nonce } = await openPage(t.url, token);
      expectEnvelope(await act(t.url, token, 'cancel', {}), 403, 'FORBIDDEN');
      expectEnvelope(
        await act(t.url, token, 'cancel', { nonce: 'A'.repeat(32) }),
        403,
        'FORBIDDEN',
      );
      // A newer page makes the older nonce stale.
      const newer = await openPage(t.url, token);
      expectEnvelope(await act(t.url, token, 'cancel', { nonce }), 403, 'FORBIDDEN');
      expect(
        expectEnvelope(
          await act(t.url, token, 'pair', {
            nonce: newer.nonce,
            currencyCode: 'ETH',
            protocol: 'ERC20',
          }),
          400,
          'INVALID_PARAMETER',
        )[0].field,
      ).toBe('currencyCode');
      expectEnvelope(await http(`${t.url}/checkout/ct_${'x'.repeat(43)}`), 404, 'NOT_FOUND');
      expectEnvelope(await http(`${t.url}/checkout/nope`), 404, 'NOT_FOUND');
      // Outcome before a pair: 409.
      const fresh = await openPage(t.url, token);
      expectEnvelope(
        await act(t.url, token, 'outcome', { nonce: fresh.nonce, outcome: 'paid' }),
        409,
        'CONFLICT',
      );
      // Nothing changed the session.
      expect((await lookup(t, 'vk_co_refusals')).body.payload[0]).toEqual({ status: 'PENDING' });
    });

    it('of two racing outcomes exactly one wins', async () => {
      const token = await tokenFor(t.url, initIframeBody('vk_co_race', receiver.url));
      let { nonce } = await openPage(t.url, token);
      await act(t.url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' });
      ({ nonce } = await openPage(t.url, token));
      const [paid, cancelled] = await Promise.all([
        act(t.url, token, 'outcome', { nonce, outcome: 'paid' }),
        act(t.url, token, 'cancel', { nonce }),
      ]);
      // The loser finds the payment ended (409) or its nonce spent (403), depending on timing.
      expect(paid.status === 200 ? cancelled.status : paid.status).toBeGreaterThanOrEqual(403);
      expect([paid.status, cancelled.status].filter((s) => s === 200)).toHaveLength(1);
      const history = await http(`${t.url}/admin/payment-sessions/vk_co_race/history`, {
        headers: adminHeaders,
      });
      expect(history.body.payload).toHaveLength(2);
    });

    it('serves the widget script, cacheable, to other origins', async () => {
      const script = await http(`${t.url}/widgets/sgpg.js?v=123`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(script.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(script.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(script.text).toContain('window.showPaymentIframe');
      expect(script.text).toContain('window.nxsgpgc3');
      const etag = script.headers.get('etag')!;
      const cached = await http(`${t.url}/widgets/sgpg.js`, { headers: { 'if-none-match': etag } });
      expect(cached.status).toBe(304);
      expect([cached.headers.get('content-type'), cached.headers.get('content-length')]).toEqual([
        null,
        null,
      ]);
      const head = await http(`${t.url}/widgets/sgpg.js`, {
        method: 'HEAD',
        headers: { 'if-none-match': etag },
      });
      expect(head.status).toBe(304);
      expect([null, script.headers.get('content-length')]).toContain(
        head.headers.get('content-length'),
      );
      expectEnvelope(await http(`${t.url}/widgets/other.js`), 404, 'NOT_FOUND');
    });

    it('never logs the personal data or the token', async () => {
      const token = await tokenFor(t.url, initIframeBody('vk_co_logs', receiver.url));
      await openPage(t.url, token);
      const logs = t.logs.join('\n');
      for (const secret of ['ann.lee.checkout', '871234567', 'Dublin', token]) {
        expect(logs).not.toContain(secret);
      }
    });
    it('answers a browser a small HTML page for a token no checkout has, JSON clients the envelope', async () => {
      const unknown = `${t.url}/checkout/ct_${'h'.repeat(43)}`;
      const shop = 'https://shop.example';
      const browser = await http(`${unknown}?origin=${encodeURIComponent(shop)}`, {
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      expect(browser.status).toBe(404);
      expect(browser.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(browser.headers.get('cache-control')).toBe('no-store');
      const csp = browser.headers.get('content-security-policy') ?? '';
      // Framed only by the page that asked, which it tells that the payment is unavailable.
      expect(csp).toContain(`frame-ancestors ${shop}`);
      expect(csp).not.toContain('unsafe-inline');
      expect(browser.text).toContain('<h1>This payment cannot be shown</h1>');
      expect(browser.text).toContain(`data-parent-origin="${shop}"`);
      expect(browser.text).toContain('data-detailed-status="UNAVAILABLE"');
      expect(browser.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
      // An origin that is not one (a path, a script) frames nothing and is told nothing.
      const odd = await http(`${unknown}?origin=${encodeURIComponent('javascript:alert(1)')}`, {
        headers: { accept: 'text/html' },
      });
      expect(odd.status).toBe(404);
      expect(odd.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(odd.text).toContain('data-parent-origin=""');
      // JSON clients, and clients that name no type, keep the envelope.
      expectEnvelope(await http(unknown), 404, 'NOT_FOUND');
      expectEnvelope(
        await http(unknown, { headers: { accept: 'application/json' } }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('operators see sessions', () => {
    let operators = 0;
    /** The headers of a new operator of the role. */
    const operator = async (role: 'viewer' | 'payments' | 'catalog' | 'admin') => {
      operators += 1;
      const created = await createOperator(t, `${role}-${operators}`, role);
      return { authorization: `Bearer ${created.token}` };
    };
    const viewer = () => operator('viewer');

    it('lists newest first with cursor pages and filters', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await http(
          `${t.url}/admin/payment-sessions?merchantId=shop&size=3${cursor ? `&cursor=${cursor}` : ''}`,
          { headers: adminHeaders },
        );
        expect(page.status).toBe(200);
        seen.push(...page.body.payload.map((s: { validationKey: string }) => s.validationKey));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toContain('vk_co_paid');
      expect(seen).not.toContain('vk_co_operator');
      const failed = await http(`${t.url}/admin/payment-sessions?status=FAILED`, {
        headers: adminHeaders,
      });
      expect(failed.body.payload.map((s: { status: string }) => s.status)).toEqual(
        failed.body.payload.map(() => 'FAILED'),
      );
      const none = await http(`${t.url}/admin/payment-sessions?createdTo=2000-01-01T00:00:00Z`, {
        headers: adminHeaders,
      });
      expect(none.body).toEqual({ payload: [] });
      expectEnvelope(
        await http(`${t.url}/admin/payment-sessions?cursor=bad!`, { headers: adminHeaders }),
        400,
        'INVALID_PARAMETER',
      );
    });

    it('shows a session; the personal data only to payments and above', async () => {
      const full = await http(`${t.url}/admin/payment-sessions/vk_co_paid`, {
        headers: adminHeaders,
      });
      expect(full.body).toMatchObject({
        validationKey: 'vk_co_paid',
        merchantId: 'shop',
        status: 'SUCCESSFUL',
        createdBy: { kind: 'merchant', id: 'shop' },
        money: { amount: 10, currency: 'EUR', presentationAmount: 'EUR10.00' },
        traceId: 'order-9001',
        clientReference: 'cust-42',
        returnUrl: `${receiver.url}/return`,
        errorUrl: `${receiver.url}/error`,
        checkout: {
          chosenPair: 'USDT/TRC20',
          client: expect.objectContaining({ emailAddress: 'ann.lee.checkout@example.org' }),
          address: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
        },
      });
      expect(full.body.payload[0].paymentResponse.customerFirstName).toBe('Ann');
      // The account the request named is shown masked, as the payment response's accountNumber.
      expect(full.body.checkout.destinationAccountNumber).toBe('5001XXXXXXXX3369');
      expect(full.text).not.toContain('5001000001223369');
      const seen = await http(`${t.url}/admin/payment-sessions/vk_co_paid`, {
        headers: await viewer(),
      });
      expect(seen.status).toBe(200);
      expect(seen.text).not.toContain('ann.lee.checkout');
      expect(seen.text).not.toContain('Dublin');
      expect(seen.body.checkout.client).toBeUndefined();
      expect(seen.body.checkout.destinationAccountNumber).toBeUndefined();
      expect(seen.text).not.toContain('3369');
      expect(seen.body.payload[0].paymentResponse.customerFirstName).toBeUndefined();
      expect(seen.body.payload[0].paymentResponse.traceId).toBe('order-9001');
      for (const role of ['payments', 'admin'] as const) {
        const shown = await http(`${t.url}/admin/payment-sessions/vk_co_paid`, {
          headers: await operator(role),
        });
        expect(shown.status).toBe(200);
        expect(shown.body.checkout.client).toEqual(full.body.checkout.client);
        expect(shown.body.checkout.address).toEqual(full.body.checkout.address);
        expect(shown.body.payload[0].paymentResponse).toEqual(full.body.payload[0].paymentResponse);
      }
      const catalog = await http(`${t.url}/admin/payment-sessions/vk_co_paid`, {
        headers: await operator('catalog'),
      });
      expect(catalog.body.checkout.client).toBeUndefined();
      expect(catalog.body.payload[0].paymentResponse.customerFirstName).toBeUndefined();
    });

    it('never writes the account number init-iframe names in clear', async () => {
      const number = '7301234598765432';
      const key = 'vk_co_account_masked';
      await tokenFor(t.url, {
        ...initIframeBody(key, receiver.url),
        destinationAccountNumber: number,
      });
      const shown = await http(`${t.url}/admin/payment-sessions/${key}`, { headers: adminHeaders });
      expect(shown.body.checkout.destinationAccountNumber).toBe('7301XXXXXXXX5432');
      expectNotInDatabaseFiles(t, number);
    });

    it('audits and counts the erasure of a checkout still PENDING, whose only copy it is', async () => {
      const key = 'vk_co_pending_erase';
      const email = 'only.this.checkout.erased@example.org';
      const body = initIframeBody(key, receiver.url);
      const token = await tokenFor(t.url, {
        ...body,
        client: { ...(body.client as object), emailAddress: email },
      });
      const counted = async () => {
        const text = (await http(`${t.url}/metrics`, { headers: adminHeaders })).text;
        const line = /^personal_data_erased_sessions_total\{reason="request"\} (\d+)$/m.exec(text);
        return Number(line?.[1] ?? 0);
      };
      const before = await counted();
      const erased = await http(`${t.url}/admin/payment-sessions/${key}/personal-data`, {
        method: 'DELETE',
        headers: adminHeaders,
      });
      expect(erased.status).toBe(204);
      expect(await counted()).toBe(before + 1);
      const events = await http(`${t.url}/admin/audit-events?size=5&target=${key}`, {
        headers: adminHeaders,
      });
      const erasure = { old: '[redacted]', new: null };
      expect(events.body.payload[0]).toMatchObject({
        target: key,
        outcome: 204,
        changes: { 'checkout.client': erasure, 'checkout.address': erasure },
      });
      // Its page says why it offers nothing to pay with (the country went with the address).
      const { page } = await openPage(t.url, token);
      expect(page.text).toContain('The details of this payment were erased');
      expect(page.text).not.toContain('from your country');
      // Nor is it left in the database's files: the log is checkpointed and emptied after it.
      expectNotInDatabaseFiles(t, email);
    });

    it('erases the checkout copy of the personal data with the session', async () => {
      const erased = await http(`${t.url}/admin/payment-sessions/vk_co_paid/personal-data`, {
        method: 'DELETE',
        headers: adminHeaders,
      });
      expect(erased.status).toBe(204);
      const after = await http(`${t.url}/admin/payment-sessions/vk_co_paid`, {
        headers: adminHeaders,
      });
      expect(after.body.checkout.client).toBeUndefined();
      expect(after.body.checkout.address).toBeUndefined();
      expect(after.body.checkout.destinationAccountNumber).toBeUndefined();
      expect(after.body.payload[0].paymentResponse.accountNumber).toBeUndefined();
      expect(after.body.checkout.chosenPair).toBe('USDT/TRC20');
      const events = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
      expect(events.text).not.toContain('ann.lee.checkout');
    });
  });
});

describe('checkout expiry (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      AUTH_MODE: 'api-key',
      CHECKOUT_TOKEN_TTL_SECONDS: '1',
      CHECKOUT_EXPIRY_SWEEP_SECONDS: '1',
    });
    await t.seed(checkoutSeed());
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('expires an unused token: NOT_COMPLETED (EXPIRED) with its callback; the page says so', async () => {
    const token = await tokenFor(t.url, initIframeBody('vk_co_expired', receiver.url));
    // With a 1 s token a busy machine may open the page only after it expired: it then says so
    // and offers no action (no nonce), and the cancel below has nothing to send.
    const opened = await openPage(t.url, token);
    const { nonce } = opened;
    if (nonce === '') {
      expect(opened.page.text).toMatch(/data-stage="(expired|ended)"/);
      expect(opened.page.text).toContain('This payment has expired.');
    }
    const ended = await lookupWhenEnded(t, 'vk_co_expired');
    expect(ended.body.payload[0]).toEqual({ status: 'NOT_COMPLETED', detailedStatus: 'EXPIRED' });
    await receiver.waitFor(() => receiver.to('/error').length === 1);
    expect(JSON.parse(receiver.to('/error')[0].body)).toEqual({
      status: 'NOT_COMPLETED',
      validationKey: 'vk_co_expired',
      detailedStatus: 'EXPIRED',
    });
    // The page's nonce, taken before the token expired, no longer acts.
    if (nonce !== '') {
      expectEnvelope(await act(t.url, token, 'cancel', { nonce }), 409, 'CONFLICT');
    }
    const page = await openPage(t.url, token);
    expect(page.page.text).toContain('This payment has expired.');
    expect(page.page.text).toContain('data-outcome="fail"');
    const state = await http(`${t.url}/checkout/${token}/status`);
    expect(state.body.payload[0]).toEqual({
      status: 'NOT_COMPLETED',
      stage: 'ended',
      outcome: 'fail',
      detailedStatus: 'EXPIRED',
    });
    const history = await http(`${t.url}/admin/payment-sessions/vk_co_expired/history`, {
      headers: adminHeaders,
    });
    expect(history.body.payload[1]).toMatchObject({ to: 'NOT_COMPLETED', by: { kind: 'system' } });
  });
});

describe('checkout outside the sandbox (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    await t.seed(checkoutSeed());
    // In production the page offers only pairs that can be paid on chain.
    await makePayable(t.url);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('outside the sandbox the page offers no outcome, and an outcome action is refused', async () => {
    const token = await tokenFor(t.url, initIframeBody('vk_co_production', receiver.url));
    const { nonce } = await openPage(t.url, token);
    await act(t.url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' });
    const waiting = await openPage(t.url, token);
    expect(waiting.page.text).toContain('Waiting for your transfer. This page updates by itself.');
    expect(waiting.page.text).not.toContain('data-action="outcome"');
    expect(waiting.page.text).not.toContain('data-action="deposit"');
    expect(waiting.page.text).not.toContain('Sandbox — never send real funds');
    expectEnvelope(
      await act(t.url, token, 'outcome', { nonce: waiting.nonce, outcome: 'paid' }),
      403,
      'FORBIDDEN',
    );
  });
});
