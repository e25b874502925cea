import { DataSource } from 'typeorm';
import {
  act,
  checkoutSeed,
  initIframeBody,
  makePayable,
  openPage,
  tokenFor,
} from './support/checkout.js';
import { freshAccount, PUBLISHED, putDepositKey } from './support/deposits.js';
import {
  adminHeaders,
  expectEnvelope,
  http,
  loggedLine,
  startTestApp,
  TestApp,
} from './support/test-app.js';

const NOWHERE = 'http://127.0.0.1:9';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface StoredAddress {
  address: string;
  addressIndex: number;
  keyId: number;
}

/** Deposit addresses given to checkouts from the merchant's keys, and their quotes (e2e). */
describe('deposit addresses (e2e)', () => {
  let t: TestApp;

  const addressesOf = async (validationKey: string): Promise<StoredAddress[]> =>
    (await t.app
      .get(DataSource)
      .query(
        'SELECT address, address_index AS "addressIndex", key_id AS "keyId" FROM deposit_address WHERE validation_key = $1',
        [validationKey],
      )) as StoredAddress[];
  const tronKey = async () =>
    (
      await http(`${t.url}/admin/merchants/shop/deposit-keys`, { headers: adminHeaders })
    ).body.payload.find((k: { network: string }) => k.network === 'tron');

  /** A checkout whose customer chose USDT on TRON: its key and token. */
  async function paying(validationKey: string): Promise<string> {
    const token = await tokenFor(t.url, initIframeBody(validationKey, NOWHERE));
    const { page, nonce } = await openPage(t.url, token);
    expect(page.text).toContain('value="USDT/TRC20"');
    const chosen = await act(t.url, token, 'pair', {
      nonce,
      currencyCode: 'USDT',
      protocol: 'TRC20',
    });
    expect(chosen.status).toBe(200);
    return token;
  }

  beforeAll(async () => {
    t = await startTestApp({ AUTH_MODE: 'api-key' }, { captureLogs: true });
    await t.seed(checkoutSeed());
  });

  afterAll(async () => {
    await t?.close();
  });

  it('offers a pair in production only with a settlement, a merchant key and a fresh rate', async () => {
    const offered = async () => {
      const token = await tokenFor(
        t.url,
        initIframeBody(`vk_offer_${Date.now()}_${Math.random()}`, NOWHERE),
      );
      return (await openPage(t.url, token)).page.text.match(/value="[A-Z0-9]+\/[A-Z0-9]+"/g) ?? [];
    };
    expect(await offered()).toEqual([]);
    const [pair] = (
      await http(`${t.url}/admin/crypto-pairs?currencyCode=USDT&protocol=TRC20&countryCode=IE`, {
        headers: adminHeaders,
      })
    ).body.payload;
    await http(`${t.url}/admin/crypto-pairs/${pair.id}`, {
      method: 'PATCH',
      headers: adminHeaders,
      body: {
        settlement: {
          network: 'tron',
          tokenContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
          decimals: 6,
          confirmations: 20,
        },
      },
    });
    expect(await offered()).toEqual([]);
    expect((await putDepositKey(t.url, 'shop', 'tron', PUBLISHED.tron.key)).status).toBe(200);
    expect(await offered()).toEqual([]);
    // A rate in another currency than the session's quotes nothing.
    await http(`${t.url}/admin/rates/USDT`, {
      method: 'PUT',
      headers: adminHeaders,
      body: { fiat: 'USD', price: '1' },
    });
    expect(await offered()).toEqual([]);
    await makePayable(t.url);
    expect(await offered()).toEqual(['value="USDT/TRC20"']);
  });

  it("gives the first checkout the key's first receive address, and quotes the amount rounded up", async () => {
    await paying('vk_addr_1');
    expect(await addressesOf('vk_addr_1')).toEqual([
      expect.objectContaining({ address: PUBLISHED.tron.addresses[0], addressIndex: 0 }),
    ]);
    const [quote] = await t.app
      .get(DataSource)
      .query(
        'SELECT amount, price, fiat, quoted_at AS "quotedAt", expires_at AS "expiresAt" FROM deposit_quote WHERE validation_key = $1',
        ['vk_addr_1'],
      );
    // 10.00 EUR at 0.92 EUR per USDT: 10.869565… rounded up to 6 decimals.
    expect(quote).toMatchObject({ amount: '10869566', price: '0.92', fiat: 'EUR' });
    expect(Number(quote.expiresAt) - Number(quote.quotedAt)).toBe(900_000);
    expect(await tronKey()).toMatchObject({ addressesGiven: 1, gap: 1 });
  });

  it('keeps the address of a session whose pair is chosen again, and gives the next session the next one', async () => {
    const token = await paying('vk_addr_2');
    const { nonce } = await openPage(t.url, token);
    expect(
      (await act(t.url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' })).status,
    ).toBe(200);
    expect(await addressesOf('vk_addr_2')).toEqual([
      expect.objectContaining({ address: PUBLISHED.tron.addresses[1], addressIndex: 1 }),
    ]);
    expect(await tronKey()).toMatchObject({ addressesGiven: 2 });
  });

  it('starts a replacing key at its own index 0, and continues the earlier key where it stopped', async () => {
    const replacement = freshAccount('tron').publicKey;
    const put = await putDepositKey(t.url, 'shop', 'tron', replacement);
    await paying('vk_addr_3');
    expect(await addressesOf('vk_addr_3')).toEqual([
      expect.objectContaining({ address: put.body.firstAddresses[0], addressIndex: 0 }),
    ]);
    expect((await putDepositKey(t.url, 'shop', 'tron', PUBLISHED.tron.key)).body).toMatchObject({
      addressesGiven: 2,
    });
    await paying('vk_addr_4');
    expect(await addressesOf('vk_addr_4')).toEqual([
      expect.objectContaining({ address: PUBLISHED.tron.addresses[2], addressIndex: 2 }),
    ]);
    const all = (await t.app.get(DataSource).query('SELECT address FROM deposit_address')) as {
      address: string;
    }[];
    expect(new Set(all.map((a) => a.address)).size).toBe(all.length);
  });

  it('warns at a gap of 20: in the log, the merchant view and /metrics', async () => {
    // Three addresses of this key were given above: seventeen more make twenty.
    for (let i = 5; i <= 21; i++) await paying(`vk_addr_${i}`);
    const key = await tronKey();
    expect(key).toMatchObject({
      addressesGiven: 20,
      gap: 20,
      gapWarning: expect.stringMatching(/20/),
    });
    const line = await loggedLine(
      t,
      (l) => l.msg === 'Deposit address gap reached the wallets’ usual limit',
    );
    expect(line).toMatchObject({ merchantId: 'shop', network: 'tron', gap: 20, level: 40 });
    const metrics = await http(`${t.url}/metrics`, { headers: adminHeaders });
    expect(metrics.text).toContain('deposit_address_gap{merchant="shop",network="tron"} 20');
  });

  it('stops offering a pair whose rate went stale', async () => {
    const short = await startTestApp({ AUTH_MODE: 'api-key', RATE_MAX_AGE_SECONDS: '1' });
    try {
      await short.seed(checkoutSeed());
      await makePayable(short.url);
      const token = await tokenFor(short.url, initIframeBody('vk_stale', NOWHERE));
      expect((await openPage(short.url, token)).page.text).toContain('value="USDT/TRC20"');
      await sleep(2100);
      const { page, nonce } = await openPage(short.url, token);
      expect(page.text).not.toContain('value="USDT/TRC20"');
      const refused = await act(short.url, token, 'pair', {
        nonce,
        currencyCode: 'USDT',
        protocol: 'TRC20',
      });
      expectEnvelope(refused, 400, 'INVALID_PARAMETER');
    } finally {
      await short.close();
    }
  });
});
