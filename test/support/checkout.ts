import { SANDBOX_DEPOSIT_KEYS } from '../../src/deposits/sandbox-keys.js';
import { adminHeaders, http, type HttpResult } from './test-app.js';

/** The key and callback secret of the merchant the checkout tests use. */
export const SHOP_KEY = 'shop-key-0123456789-abcdefghijklmnopqrstuvwxyz';
export const OTHER_SHOP_KEY = 'other-shop-key-0123456789-abcdefghijklmnopqrstu';
export const SHOP_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** A catalog and two merchants: `shop` (whose callbacks the tests verify) and `other`. */
export function checkoutSeed(checkoutOrigins: string[] = []) {
  return {
    cryptoPairs: [
      { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
      { currencyCode: 'BTC', currencyName: 'Bitcoin', protocol: 'BITCOIN', countryCode: 'IE' },
      {
        currencyCode: 'ETH',
        currencyName: 'Ether',
        protocol: 'ERC20',
        countryCode: 'IE',
        enabled: false,
      },
      { currencyCode: 'USDC', currencyName: 'USD Coin', protocol: 'BASE', countryCode: 'DE' },
    ],
    merchants: [
      {
        id: 'shop',
        name: 'Shop & Co <Ltd>',
        apiKeys: [SHOP_KEY],
        callbackSecret: SHOP_SECRET,
        checkoutOrigins,
      },
      { id: 'other', name: 'Other', apiKeys: [OTHER_SHOP_KEY] },
    ],
  };
}

/** The body existing integrations send, for `validationKey`, calling back `receiverUrl`. */
export function initIframeBody(
  validationKey: string,
  receiverUrl: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    money: { amount: '10.00', currency: 'EUR' },
    client: {
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '871234567',
      dialingCode: '+353',
      nationality: 'IE',
      emailAddress: 'ann.lee.checkout@example.org',
      dob: '1990-01-31',
    },
    address: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
    validationKey,
    clientReference: 'cust-42',
    traceId: 'order-9001',
    description: 'order-9001',
    destinationAccountNumber: '5001000001223369',
    brandId: '001',
    returnUrl: `${receiverUrl}/return`,
    errorUrl: `${receiverUrl}/error`,
    languagePreference: 'EN',
    ...overrides,
  };
}

/** POST init-iframe as integrations send it: `key` and `x-api-version: 1`. */
export function initIframe(baseUrl: string, body: unknown, key = SHOP_KEY): Promise<HttpResult> {
  return http(`${baseUrl}/api/gateway/init-iframe`, {
    method: 'POST',
    headers: { key, 'x-api-version': '1' },
    body,
  });
}

/** The token init-iframe answered (fails the test when it refused). */
export async function tokenFor(baseUrl: string, body: unknown): Promise<string> {
  const answer = await initIframe(baseUrl, body);
  if (answer.status !== 200)
    throw new Error(`init-iframe answered ${answer.status}: ${answer.text}`);
  return answer.body.payload[0].initializationToken as string;
}

/** The checkout page of a token, and the nonce it carries. */
export async function openPage(
  baseUrl: string,
  token: string,
): Promise<{ page: HttpResult; nonce: string }> {
  const page = await http(`${baseUrl}/checkout/${token}`);
  return { page, nonce: /data-nonce="([^"]*)"/.exec(page.text)?.[1] ?? '' };
}

/** A page action, as the page's script sends it. */
export function act(
  baseUrl: string,
  token: string,
  action: 'pair' | 'outcome' | 'cancel' | 'deposit',
  body: Record<string, unknown>,
): Promise<HttpResult> {
  return http(`${baseUrl}/checkout/${token}/${action}`, { method: 'POST', body });
}

/** USDT on TRON as the demo data settles it. */
export const USDT_ON_TRON = {
  network: 'tron',
  tokenContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  decimals: 6,
  confirmations: 20,
};

/**
 * Makes checkoutSeed's USDT/TRC20 pair of Ireland payable on chain for `merchantId`: its
 * settlement, the merchant's TRON key (the standard test phrase's, `key`) and a price in euro.
 */
export async function makePayable(
  baseUrl: string,
  merchantId = 'shop',
  key: string = SANDBOX_DEPOSIT_KEYS.tron,
): Promise<void> {
  const admin = (path: string, method: string, body?: unknown) =>
    http(`${baseUrl}${path}`, { method, headers: adminHeaders, body });
  const listed = await admin(
    '/admin/crypto-pairs?currencyCode=USDT&protocol=TRC20&countryCode=IE',
    'GET',
  );
  const [pair] = listed.body.payload as { id: number }[];
  const answers = await Promise.all([
    admin(`/admin/crypto-pairs/${pair.id}`, 'PATCH', { settlement: USDT_ON_TRON }),
    admin(`/admin/merchants/${merchantId}/deposit-keys/tron`, 'PUT', { extendedPublicKey: key }),
    admin('/admin/rates/USDT', 'PUT', { fiat: 'EUR', price: '0.92' }),
  ]);
  for (const answer of answers) {
    if (answer.status !== 200) throw new Error(`makePayable: ${answer.status} ${answer.text}`);
  }
}
