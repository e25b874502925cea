import { MAX_LOGGED_URL, loggableUrl } from './loggable-url.js';

const KEY = 'vk_demo_pending_8b1d3c5f';
const WORDS = new Set([
  'api',
  'gateway',
  'payment-status',
  'admin',
  'payment-sessions',
  'history',
  'crypto-currency-protocol-processors',
  'countryCode',
  'size',
]);
const isRouteWord = (word: string) => WORDS.has(word);

describe('loggableUrl', () => {
  it.each([
    `/api/gateway/payment-status/${KEY}`,
    `/api/./gateway/payment-status/${KEY}?x=1`,
    `/API/gateway/payment-status/${KEY}`,
    `/api/x/../gateway/payment-status/${KEY}`,
    `//api//gateway//payment-status/${KEY}`,
    `/api/gateway/payment-status/${KEY}/extra`,
    `/%61pi/gateway/payment-status/${encodeURIComponent(KEY)}`,
    `/elsewhere/api/gateway/payment-status/${KEY}`,
    `/api;x=1/gateway/payment-status/${KEY}`,
    `/api\\gateway/payment-status/${KEY}`,
    `/api;x=1/gateway;y=2/payment-status;z/${KEY}`,
    `/admin/payment-sessions/${KEY}/history`,
    `/admin/./payment-sessions/${KEY}`,
    `/${KEY}`,
    `/api/crypto-currency-protocol-processors?validationKey=${KEY}`,
    `/api/crypto-currency-protocol-processors?${KEY}`,
    `/api/crypto-currency-protocol-processors?countryCode=${KEY}`,
  ])('never shows the whole key of %s, only its first 6 characters', (url) => {
    const logged = loggableUrl(url, isRouteWord);
    expect(logged).not.toContain(KEY.slice(0, 7));
  });

  it('shows the route words and cuts what is not one', () => {
    expect(loggableUrl(`/admin/payment-sessions/${KEY}/history`, isRouteWord)).toBe(
      '/admin/payment-sessions/vk_dem…/history',
    );
    expect(
      loggableUrl('/api/crypto-currency-protocol-processors?countryCode=IE&size=50', isRouteWord),
    ).toBe('/api/crypto-currency-protocol-processors?countryCode=I…&size=5…');
    expect(loggableUrl('/api/./x/../', isRouteWord)).toBe('/api/./…/../');
  });

  it(`cuts a logged URL to ${MAX_LOGGED_URL} characters and keeps it printable`, () => {
    const logged = loggableUrl(`/api/${'p/'.repeat(20_000)}\u0000\u001b[31m`, isRouteWord);
    expect(logged.length).toBeLessThanOrEqual(MAX_LOGGED_URL);
    expect(loggableUrl('/api/ab\u001b[31mcdefgh', isRouteWord)).toBe('/api/ab?[31…');
  });
});
