import { DataSource } from 'typeorm';
import {
  checkoutSeed,
  initIframe,
  initIframeBody,
  openPage,
  tokenFor,
} from './support/checkout.js';
import {
  adminHeaders,
  expectEnvelope,
  http,
  startTestApp,
  TEST_DIALECT,
  TestApp,
} from './support/test-app.js';

/**
 * Hosts a URL parser takes that are neither a DNS name nor an IP literal. A callback URL's origin
 * frames the checkout page (`frame-ancestors`), so each of these would widen or rewrite the page's
 * Content-Security-Policy.
 */
const NOT_A_HOST = [
  'https://*/x',
  'https://*.example/x',
  'https://shop.example;sandbox/',
  'https://shop.example;script-src/',
  'https://a,b.example/',
  'https://a"b.example/',
  "https://a'b.example/",
  'https://a$b.example/',
  'https://a{b}.example/',
  'https://exa_mple.example/',
  'https://-shop.example/',
  'https://shop-.example/',
  'https://a..b/',
  'https://shop.example./',
  'https://a=b/',
  'https://a!b/',
  `https://${'a'.repeat(64)}.example/`,
];

/** Hosts that are: names (international ones too), IPv4, IPv6, with a port. */
const HOSTS = [
  'https://shop.example/return',
  'https://xn--exmple-cua.example/r',
  'https://exämple.example/r',
  'https://SHOP.Example:8443/r',
  'https://203.0.113.9/r',
  'https://[2001:db8::1]/r',
  'http://localhost:3000/r',
];

const originOf = (url: string) => new URL(url).origin;

describe('callback URLs and checkout origins whose host is not a host (e2e)', () => {
  let t: TestApp;
  let n = 0;
  const key = () => `vk_hosts_${++n}`;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' });
    await t.seed(checkoutSeed());
  });
  afterAll(() => t.close());

  describe.each(NOT_A_HOST)('%s', (url) => {
    it.each(['returnUrl', 'errorUrl'])('is refused as init-iframe %s (400)', async (field) => {
      const answer = await initIframe(
        t.url,
        initIframeBody(key(), 'https://shop.example', { [field]: url }),
      );
      expect(expectEnvelope(answer, 400, 'INVALID_PARAMETER').map((e) => e.field)).toEqual([field]);
    });

    it.each(['returnUrl', 'errorUrl'])(
      'is refused as the operator report %s (400)',
      async (field) => {
        const answer = await http(`${t.url}/admin/payment-sessions/${key()}`, {
          method: 'PUT',
          headers: adminHeaders,
          body: { merchantId: 'shop', status: 'PENDING', [field]: url },
        });
        expect(expectEnvelope(answer, 400, 'INVALID_PARAMETER').map((e) => e.field)).toEqual([
          field,
        ]);
      },
    );

    it('is refused as a merchant checkout origin, created or changed (400)', async () => {
      const created = await http(`${t.url}/admin/merchants`, {
        method: 'POST',
        headers: adminHeaders,
        body: { id: `hosts-${++n}`, name: 'Hosts', checkoutOrigins: [originOf(url)] },
      });
      expect(expectEnvelope(created, 400, 'INVALID_PARAMETER')[0].field).toMatch(
        /^checkoutOrigins/,
      );
      const changed = await http(`${t.url}/admin/merchants/shop`, {
        method: 'PATCH',
        headers: adminHeaders,
        body: { checkoutOrigins: [originOf(url)] },
      });
      expect(expectEnvelope(changed, 400, 'INVALID_PARAMETER')[0].field).toMatch(
        /^checkoutOrigins/,
      );
    });
  });

  it.each(HOSTS)('takes %s, and its origin frames the page', async (url) => {
    const token = await tokenFor(
      t.url,
      initIframeBody(key(), 'https://shop.example', { returnUrl: url }),
    );
    const { page } = await openPage(t.url, token);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/frame-ancestors [^;]+/);
    expect(/frame-ancestors ([^;]+)/.exec(csp)![1].split(' ')).toContain(originOf(url));
  });

  it.each(NOT_A_HOST)(
    'keeps a stored URL %s out of frame-ancestors, whatever the row holds',
    async (url) => {
      const validationKey = key();
      const token = await tokenFor(t.url, initIframeBody(validationKey, 'https://shop.example'));
      const sql =
        TEST_DIALECT === 'postgres'
          ? 'UPDATE payment_session SET return_url = $1 WHERE validation_key = $2'
          : 'UPDATE payment_session SET return_url = ? WHERE validation_key = ?';
      await t.app.get(DataSource).query(sql, [url, validationKey]);
      const { page } = await openPage(t.url, token);
      const csp = page.headers.get('content-security-policy') ?? '';
      const sources = /frame-ancestors ([^;]+)/.exec(csp)![1].split(' ');
      // Only the error URL's origin is left: nothing the planted host could add or end.
      expect(sources).toEqual(['https://shop.example']);
      expect(csp.split(';').filter((d) => d.trim().startsWith('sandbox'))).toEqual([]);
    },
  );
});
