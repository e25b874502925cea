import { readFileSync } from 'node:fs';
import { adminHeaders, expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';

const PAIRS = '/admin/crypto-pairs';
const CATALOG = '/api/crypto-currency-protocol-processors';
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_ETHEREUM = '0xdAC17F958D2ee523a2206206994597C13D831ec7';

const pair = (currencyCode: string, protocol: string, countryCode: string, extra = {}) => ({
  currencyCode,
  currencyName: `${currencyCode} coin`,
  protocol,
  countryCode,
  ...extra,
});

/** How a pair is paid on chain: on the operator's pair routes and in seed files only. */
describe('settlement of a pair (e2e)', () => {
  let t: TestApp;

  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    http(t.url + path, { ...init, headers: adminHeaders });

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('stores a settlement given with a new pair, shows it to operators and never to merchants', async () => {
    const settlement = {
      network: 'tron',
      tokenContract: USDT_TRON,
      decimals: 6,
      confirmations: 20,
    };
    const created = await admin(PAIRS, {
      method: 'POST',
      body: pair('USDT', 'TRC20', 'IE', { settlement }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ currencyCode: 'USDT', settlement });
    const listed = await admin(`${PAIRS}?countryCode=IE`);
    expect(listed.body.payload).toEqual([expect.objectContaining({ settlement })]);
    const catalog = await http(`${t.url}${CATALOG}?countryCode=IE`);
    expect(catalog.body.payload).toEqual([
      { currencyCode: 'USDT', currencyName: 'USDT coin', protocol: 'TRC20', countryCode: 'IE' },
    ]);
  });

  it("keeps an EVM token contract in EIP-55's checksummed form, whatever the case it was given in", async () => {
    const created = await admin(PAIRS, {
      method: 'POST',
      body: pair('USDT', 'ERC20', 'IE', {
        settlement: {
          network: 'evm',
          chainId: 1,
          tokenContract: USDT_ETHEREUM.toLowerCase(),
          decimals: 6,
          confirmations: 12,
        },
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body.settlement.tokenContract).toBe(USDT_ETHEREUM);
  });

  it.each([
    [{ network: 'evm', decimals: 18, confirmations: 12 }, 'settlement.chainId', /EVM chain id/],
    [
      { network: 'bitcoin', chainId: 1, decimals: 8, confirmations: 3 },
      'settlement.chainId',
      /evm only/,
    ],
    [
      { network: 'tron', tokenContract: USDT_ETHEREUM, decimals: 6, confirmations: 20 },
      'settlement.tokenContract',
      /token contract on TRON/,
    ],
    [
      { network: 'bitcoin', tokenContract: USDT_TRON, decimals: 8, confirmations: 3 },
      'settlement.tokenContract',
      /no tokens/,
    ],
    [
      // One letter's case changed: EIP-55's checksum does not hold.
      {
        network: 'evm',
        chainId: 1,
        tokenContract: USDT_ETHEREUM.replace('dAC', 'DAC'),
        decimals: 6,
        confirmations: 12,
      },
      'settlement.tokenContract',
      /EIP-55/,
    ],
    [
      { network: 'evm', chainId: 1, decimals: 6, confirmations: 12 },
      'settlement.decimals',
      /must be 18 for EVM's own coin/,
    ],
    [
      { network: 'evm', chainId: 1, tokenContract: USDT_ETHEREUM, decimals: 37, confirmations: 1 },
      'settlement.decimals',
      /0 to 36/,
    ],
    [{ network: 'bitcoin', decimals: 8, confirmations: 0 }, 'settlement.confirmations', /from 1/],
    [
      { network: 'solana', decimals: 9, confirmations: 1 },
      'settlement.network',
      /bitcoin, evm, tron/,
    ],
    ['tron', 'settlement', /must be an object/],
  ])('refuses the settlement %j (%s)', async (settlement, field, message) => {
    const r = await admin(PAIRS, { method: 'POST', body: pair('BAD', 'X', 'FR', { settlement }) });
    const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
    const listed = await admin(`${PAIRS}?countryCode=FR`);
    expect(listed.body.payload).toEqual([]);
  });

  it('sets, keeps and clears a settlement with PATCH, and audits each change', async () => {
    const created = await admin(PAIRS, { method: 'POST', body: pair('BTC', 'BITCOIN', 'NL') });
    expect(created.body.settlement).toBeUndefined();
    const settlement = { network: 'bitcoin', decimals: 8, confirmations: 3 };
    const set = await admin(`${PAIRS}/${created.body.id}`, {
      method: 'PATCH',
      body: { settlement },
    });
    expect(set.status).toBe(200);
    expect(set.body.settlement).toEqual(settlement);
    const renamed = await admin(`${PAIRS}/${created.body.id}`, {
      method: 'PATCH',
      body: { currencyName: 'Bitcoin' },
    });
    expect(renamed.body.settlement).toEqual(settlement);
    const cleared = await admin(`${PAIRS}/${created.body.id}`, {
      method: 'PATCH',
      body: { settlement: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.settlement).toBeUndefined();
    expect((await admin(`${PAIRS}?countryCode=NL`)).body.payload[0].settlement).toBeUndefined();
    const events = await admin(
      `/admin/audit-events?target=${created.body.id}&action=updateCryptoPair`,
    );
    const changes = events.body.payload.map((e: { changes: object }) => e.changes);
    expect(changes).toContainEqual({ settlement: { old: null, new: settlement } });
    expect(changes).toContainEqual({ settlement: { old: settlement, new: null } });
  });

  it('takes settlements from seed files, and names a bad one with its path', async () => {
    await t.seed({
      cryptoPairs: [
        pair('ETH', 'ERC20', 'DE', {
          settlement: { network: 'evm', chainId: 1, decimals: 18, confirmations: 12 },
        }),
      ],
    });
    const listed = await admin(`${PAIRS}?countryCode=DE`);
    expect(listed.body.payload[0].settlement).toEqual({
      network: 'evm',
      chainId: 1,
      decimals: 18,
      confirmations: 12,
    });
    await expect(
      t.seed({
        cryptoPairs: [
          pair('ETH', 'ERC20', 'AT', {
            settlement: { network: 'evm', decimals: 18, confirmations: 1 },
          }),
        ],
      }),
    ).rejects.toThrow(/cryptoPairs\[0\]\.settlement\.chainId/);
  });

  it('loads the demo seed, whose pairs of each network carry a settlement', async () => {
    const demo = JSON.parse(readFileSync('seeds/demo.json', 'utf8')) as {
      cryptoPairs: { settlement?: { network: string } }[];
    };
    const networks = new Set(demo.cryptoPairs.map((p) => p.settlement?.network));
    expect([...networks].filter(Boolean).sort()).toEqual(['bitcoin', 'evm', 'tron']);
    await t.seed({ cryptoPairs: demo.cryptoPairs });
    const listed = await admin(`${PAIRS}?countryCode=IE&currencyCode=TRX`);
    expect(listed.body.payload).toEqual([
      expect.objectContaining({
        protocol: 'TRC20',
        settlement: { network: 'tron', decimals: 6, confirmations: 20 },
      }),
    ]);
  });
});
