import { CHECKOUT_REFUSALS_LIMIT } from '../src/checkout/checkout-refusals.js';
import { adminHeaders, expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';

/**
 * Behind a load balancer every request arrives from the balancer's address. The limits that
 * count callers by address (refused checkout requests, callers without a valid key or token)
 * count the client the trusted proxies forwarded for (TRUST_PROXY), never the balancer, and never
 * an address a client wrote itself.
 */

const BAD_TOKEN = 'tok_' + 'x'.repeat(40);
const SHOPPER = '203.0.113.7';
const OTHER_SHOPPER = '198.51.100.9';

const fromClient = (address: string) => ({ 'x-forwarded-for': address });
const checkoutPage = (t: TestApp, headers: Record<string, string>) =>
  http(`${t.url}/checkout/${BAD_TOKEN}`, { headers });

/** The refused checkout requests one address may make before its 429. */
async function refuseUntilLimited(t: TestApp, headers: Record<string, string>) {
  for (let i = 0; i < CHECKOUT_REFUSALS_LIMIT; i++) {
    expect((await checkoutPage(t, headers)).status).toBe(404);
  }
  expectEnvelope(await checkoutPage(t, headers), 429, 'RATE_LIMITED');
}

describe('limits per address behind trusted proxies (TRUST_PROXY=loopback) (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      AUTH_MODE: 'api-key',
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_PER_MINUTE: '5',
    });
  });
  afterAll(() => t.close());

  it("counts bad checkout tokens per shopper: one shopper's 429 leaves the others served", async () => {
    await refuseUntilLimited(t, fromClient(SHOPPER));
    expect((await checkoutPage(t, fromClient(OTHER_SHOPPER))).status).toBe(404);
    // A client cannot leave its own count by naming another address before its own: the
    // trusted proxy appended the address it saw last.
    expectEnvelope(
      await checkoutPage(t, fromClient(`${OTHER_SHOPPER}, ${SHOPPER}`)),
      429,
      'RATE_LIMITED',
    );
  });

  it('counts merchant callers without a valid key per client', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await http(`${t.url}/api/crypto-currency-protocol-processors`, {
        headers: fromClient('192.0.2.10'),
      });
      expectEnvelope(r, 401, 'UNAUTHORIZED');
    }
    const limited = await http(`${t.url}/api/crypto-currency-protocol-processors`, {
      headers: fromClient('192.0.2.10'),
    });
    expectEnvelope(limited, 429, 'RATE_LIMITED');
    const other = await http(`${t.url}/api/crypto-currency-protocol-processors`, {
      headers: fromClient('192.0.2.11'),
    });
    expectEnvelope(other, 401, 'UNAUTHORIZED');
  });

  it('counts operator callers without a valid token per client; a working token is never limited', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await http(`${t.url}/admin/merchants`, { headers: fromClient('192.0.2.20') });
      expectEnvelope(r, 401, 'UNAUTHORIZED');
    }
    expectEnvelope(
      await http(`${t.url}/admin/merchants`, { headers: fromClient('192.0.2.20') }),
      429,
      'RATE_LIMITED',
    );
    expectEnvelope(
      await http(`${t.url}/admin/merchants`, { headers: fromClient('192.0.2.21') }),
      401,
      'UNAUTHORIZED',
    );
    const admin = await http(`${t.url}/admin/merchants`, {
      headers: { ...adminHeaders, ...fromClient('192.0.2.20') },
    });
    expect(admin.status).toBe(200);
  });
});

describe('limits per address without TRUST_PROXY (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
  });
  afterAll(() => t.close());

  it('counts the connection, whatever X-Forwarded-For says: every client of a proxy shares its count', async () => {
    await refuseUntilLimited(t, fromClient(SHOPPER));
    // Another address in the header changes nothing: the peer is the same.
    expectEnvelope(await checkoutPage(t, fromClient(OTHER_SHOPPER)), 429, 'RATE_LIMITED');
    expectEnvelope(await checkoutPage(t, {}), 429, 'RATE_LIMITED');
  });
});
