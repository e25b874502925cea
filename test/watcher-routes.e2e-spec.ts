import { pino } from 'pino';
import { GatewayClient } from '../src/watcher/gateway-client.js';
import { Outage } from '../src/watcher/outage.js';
import { act, checkoutSeed, initIframeBody, openPage, tokenFor } from './support/checkout.js';
import { decodeQrCode, PUBLISHED, putDepositKey } from './support/deposits.js';
import {
  adminHeaders,
  createOperator,
  expectEnvelope,
  http,
  startTestApp,
  TestApp,
} from './support/test-app.js';

const USDT_ETHEREUM = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const NOWHERE = 'http://127.0.0.1:9';
/** Seconds an ended session's addresses stay watched, in this app. */
const LATE_WATCH_SECONDS = 3;

/** The watcher's two routes and the operator's list of deposits, through the real app (e2e). */
describe("the watcher's routes (e2e)", () => {
  let t: TestApp;
  let watcher: Record<string, string>;
  const given: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    http(`${t.url}${path}`, { ...init, headers: adminHeaders });
  const watched = (query: string, headers = watcher) =>
    http(`${t.url}/admin/deposit-addresses?${query}`, { headers });
  const report = (body: unknown) =>
    http(`${t.url}/admin/deposits`, { method: 'POST', headers: watcher, body });

  /** A checkout paying `pair`: the address it was given. */
  async function paying(validationKey: string, currencyCode: string, protocol: string) {
    const token = await tokenFor(t.url, initIframeBody(validationKey, NOWHERE));
    const { nonce } = await openPage(t.url, token);
    expect((await act(t.url, token, 'pair', { nonce, currencyCode, protocol })).status).toBe(200);
    const status = await http(`${t.url}/checkout/${token}/status`);
    given[validationKey] = status.body.payload[0].payment.address;
    tokens[validationKey] = token;
    return given[validationKey];
  }

  beforeAll(async () => {
    t = await startTestApp({
      AUTH_MODE: 'api-key',
      LATE_DEPOSIT_WATCH_SECONDS: String(LATE_WATCH_SECONDS),
    });
    const seed = checkoutSeed();
    await t.seed({
      ...seed,
      cryptoPairs: [
        {
          currencyCode: 'USDT',
          currencyName: 'Tether',
          protocol: 'ERC20',
          countryCode: 'IE',
          settlement: {
            network: 'evm',
            chainId: 1,
            tokenContract: USDT_ETHEREUM,
            decimals: 6,
            confirmations: 12,
          },
        },
        {
          currencyCode: 'ETH',
          currencyName: 'Ether',
          protocol: 'ERC20',
          countryCode: 'IE',
          settlement: { network: 'evm', chainId: 1, decimals: 18, confirmations: 12 },
        },
        {
          currencyCode: 'USDT',
          currencyName: 'Tether',
          protocol: 'POLYGON',
          countryCode: 'IE',
          settlement: {
            network: 'evm',
            chainId: 137,
            tokenContract: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
            decimals: 6,
            confirmations: 32,
          },
        },
      ],
    });
    expect((await putDepositKey(t.url, 'shop', 'evm', PUBLISHED.evm.key)).status).toBe(200);
    for (const [code, price] of [
      ['USDT', '0.92'],
      ['ETH', '3000'],
    ]) {
      await admin(`/admin/rates/${code}`, { method: 'PUT', body: { fiat: 'EUR', price } });
    }
    const operator = await createOperator(t, 'watcher-eth', 'payments');
    watcher = { authorization: `Bearer ${operator.token}` };
    await paying('vk_w_usdt', 'USDT', 'ERC20');
    await paying('vk_w_eth', 'ETH', 'ERC20');
    await paying('vk_w_polygon', 'USDT', 'POLYGON');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists a chain’s addresses with what to watch for, in the order given, a page at a time', async () => {
    const first = await watched('network=evm&chainId=1&state=watching&size=1');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      payload: [
        {
          network: 'evm',
          chainId: 1,
          address: PUBLISHED.evm.addresses[0],
          tokenContract: USDT_ETHEREUM,
          decimals: 6,
          confirmations: 12,
          assignedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          sessionFinal: false,
        },
      ],
      nextCursor: expect.any(String),
    });
    const second = await watched(`network=evm&chainId=1&size=1&cursor=${first.body.nextCursor}`);
    // The network's own coin: no tokenContract. The last page: no nextCursor.
    expect(second.body).toEqual({
      payload: [
        {
          network: 'evm',
          chainId: 1,
          address: PUBLISHED.evm.addresses[1],
          decimals: 18,
          confirmations: 12,
          assignedAt: expect.any(String),
          sessionFinal: false,
        },
      ],
    });
    const polygon = await watched('network=evm&chainId=137');
    expect(polygon.body.payload.map((a: { address: string }) => a.address)).toEqual([
      PUBLISHED.evm.addresses[2],
    ]);
    expect((await watched('network=evm')).body.payload).toHaveLength(3);
    expect((await watched('network=tron')).body).toEqual({ payload: [] });
  });

  it('draws the EIP-681 token transfer in the QR code of an EVM token payment', async () => {
    const svg = await http(`${t.url}/checkout/${tokens.vk_w_usdt}/qr.svg`);
    expect(decodeQrCode(svg.text)).toBe(
      `ethereum:${USDT_ETHEREUM}@1/transfer?address=${given.vk_w_usdt}&uint256=10869566`,
    );
    const coin = await http(`${t.url}/checkout/${tokens.vk_w_eth}/qr.svg`);
    // 10.00 EUR at 3000 EUR per ETH, in wei, rounded up.
    expect(decodeQrCode(coin.text)).toBe(`ethereum:${given.vk_w_eth}@1?value=3333333333333334`);
  });

  it('refuses a query that breaks its rules', async () => {
    for (const [query, field] of [
      ['chainId=1', 'network'],
      ['network=tron&chainId=1', 'chainId'],
      ['network=evm&size=1001', 'size'],
      ['network=evm&size=0', 'size'],
      ['network=evm&state=final', 'state'],
      ['network=evm&cursor=not!a!cursor', 'cursor'],
      [`network=evm&cursor=${Buffer.from('{"id":"x"}').toString('base64url')}`, 'cursor'],
      ['network=evm&network=tron', 'network'],
    ]) {
      const [error] = expectEnvelope(await watched(query), 400, 'INVALID_PARAMETER');
      expect({ query, field: error.field }).toEqual({ query, field });
    }
  });

  it('keeps an ended session’s address watched for LATE_DEPOSIT_WATCH_SECONDS, then lists it only with state=all', async () => {
    const paid = await report({
      network: 'evm',
      address: given.vk_w_eth.toLowerCase(),
      txid: `0x${'e'.repeat(64)}`,
      index: 0,
      asset: 'native',
      amount: '3333333333333334',
      confirmations: 12,
    });
    expect(paid.body.payload[0].session.status).toBe('SUCCESSFUL');
    const ended = (await watched('network=evm&chainId=1')).body.payload.find(
      (a: { address: string }) => a.address === given.vk_w_eth,
    );
    expect(ended).toMatchObject({ sessionFinal: true });
    await new Promise((resolve) => setTimeout(resolve, (LATE_WATCH_SECONDS + 1) * 1000));
    const addresses = async (query: string) =>
      (await watched(query)).body.payload.map((a: { address: string }) => a.address);
    expect(await addresses('network=evm&chainId=1')).toEqual([given.vk_w_usdt]);
    expect(await addresses('network=evm&chainId=1&state=all')).toEqual([
      given.vk_w_usdt,
      given.vk_w_eth,
    ]);
  });

  it("serves the reference watcher's client as it was written: it reads every address and its reports are taken", async () => {
    const logger = pino({ enabled: false });
    const client = new GatewayClient(
      t.url,
      watcher.authorization.slice('Bearer '.length),
      new Outage(logger, 'gateway', t.url),
      logger,
    );
    const pages: string[][] = [];
    for await (const page of client.watchedAddresses(1)) pages.push(page.map((a) => a.address));
    expect(pages.flat()).toEqual([given.vk_w_usdt]);
    const accepted = await client.report({
      network: 'evm',
      chainId: 1,
      address: given.vk_w_usdt,
      txid: `0x${'a'.repeat(64)}`,
      index: 3,
      asset: USDT_ETHEREUM,
      amount: '10869566',
      confirmations: 1,
    });
    expect(accepted).toBe('accepted');
    const refused = await client.report({
      network: 'evm',
      chainId: 1,
      address: '0x000000000000000000000000000000000000dEaD',
      txid: `0x${'b'.repeat(64)}`,
      index: 0,
      asset: 'native',
      amount: '1',
      confirmations: 1,
    });
    expect(refused).toBe('refused');
  });

  it("lists the deposits for operators: newest first, the flagged ones, a session's, a network's", async () => {
    await report({
      network: 'evm',
      chainId: 137,
      address: given.vk_w_usdt,
      txid: `0x${'c'.repeat(64)}`,
      index: 1,
      asset: USDT_ETHEREUM,
      amount: '10869566',
      confirmations: 40,
    });
    const flagged = await admin('/admin/deposits?flagged=true');
    expect(flagged.status).toBe(200);
    expect(flagged.body.payload).toEqual([
      {
        id: expect.any(Number),
        network: 'evm',
        chainId: 137,
        address: given.vk_w_usdt,
        txid: `0x${'c'.repeat(64)}`,
        index: 1,
        asset: USDT_ETHEREUM,
        amount: '10869566',
        confirmations: 40,
        counted: false,
        flag: 'OTHER_CHAIN',
        flaggedAmount: '10869566',
        validationKey: 'vk_w_usdt',
        firstSeenAt: expect.any(String),
        updatedAt: expect.any(String),
        session: { status: 'PENDING' },
      },
    ]);
    const all = await admin('/admin/deposits?size=2');
    expect(all.body.payload.map((d: { txid: string }) => d.txid[2])).toEqual(['c', 'a']);
    const older = await admin(`/admin/deposits?size=2&cursor=${all.body.nextCursor}`);
    expect(older.body.payload.map((d: { txid: string }) => d.txid[2])).toEqual(['e']);
    expect(older.body.nextCursor).toBeUndefined();
    const ofSession = await admin('/admin/deposits?validationKey=vk_w_eth');
    expect(ofSession.body.payload).toEqual([
      expect.objectContaining({ counted: true, session: { status: 'SUCCESSFUL' } }),
    ]);
    expect((await admin('/admin/deposits?network=tron')).body.payload).toEqual([]);
    expect((await admin('/admin/deposits?flagged=false')).body.payload).toHaveLength(2);
    expectEnvelope(await admin('/admin/deposits?flagged=yes'), 400, 'INVALID_PARAMETER');
  });
});
