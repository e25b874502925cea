import { randomBytes } from 'node:crypto';
import { createBase58check, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { versionsOf } from '../src/deposits/extended-key-versions.js';
import { freshAccount, PUBLISHED, putDepositKey } from './support/deposits.js';
import {
  adminHeaders,
  createOperator,
  expectEnvelope,
  http,
  startTestApp,
  TestApp,
} from './support/test-app.js';

const WATCH_ONLY = 'The gateway takes watch-only public keys only';

/** Merchants' watch-only deposit keys: the operator's three routes. */
describe('deposit keys (e2e)', () => {
  let t: TestApp;

  const keysOf = (merchantId: string) =>
    http(`${t.url}/admin/merchants/${merchantId}/deposit-keys`, { headers: adminHeaders });
  const removeKey = (merchantId: string, network: string) =>
    http(`${t.url}/admin/merchants/${merchantId}/deposit-keys/${network}`, {
      method: 'DELETE',
      headers: adminHeaders,
    });

  beforeAll(async () => {
    t = await startTestApp();
    await t.seed({
      merchants: [
        { id: 'shop', name: 'Shop' },
        { id: 'other', name: 'Other' },
      ],
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each(Object.entries(PUBLISHED))(
    'registers a %s account key and shows its fingerprint and first three receive addresses',
    async (network, { key, addresses }) => {
      const r = await putDepositKey(t.url, 'shop', network, ` ${key} `);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        network,
        format: network === 'bitcoin' ? 'zpub' : 'xpub',
        standard: network === 'bitcoin' ? 'BIP84' : 'BIP44',
        extendedPublicKey: key,
        fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
        firstAddresses: addresses,
        addressesGiven: 0,
        gap: 0,
        createdAt: expect.any(String),
      });
    },
  );

  it("lists the merchant's current keys, one per network", async () => {
    const r = await keysOf('shop');
    expect(r.status).toBe(200);
    expect(r.body.payload.map((k: { network: string }) => k.network)).toEqual([
      'bitcoin',
      'evm',
      'tron',
    ]);
    expect((await keysOf('other')).body).toEqual({ payload: [] });
    expectEnvelope(await keysOf('nobody'), 404, 'NOT_FOUND');
  });

  it('takes a BIP44 xpub for bitcoin, with 1… addresses', async () => {
    const { node } = freshAccount('evm');
    const xpub = HDKey.fromExtendedKey(node.publicExtendedKey).publicExtendedKey;
    const r = await putDepositKey(t.url, 'other', 'bitcoin', xpub);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ format: 'xpub', standard: 'BIP44' });
    for (const address of r.body.firstAddresses) expect(address).toMatch(/^1/);
  });

  it.each([
    ['a testnet key', () => freshTpub(), /testnet key/],
    ['a mistyped key', () => mistyped(freshAccount('evm').publicKey), /checksum/],
    [
      'a key below the account level',
      () => freshAccount('evm').node.deriveChild(0).publicExtendedKey,
      /account-level/,
    ],
    ['a zpub for evm', () => PUBLISHED.bitcoin.key, /not taken for this network/],
    ['text that is no key', () => 'hello', /not an extended public key/],
  ])('refuses %s for evm, saying why', async (_name, key, message) => {
    const r = await putDepositKey(t.url, 'other', 'evm', key());
    const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
    expect(error).toMatchObject({
      field: 'extendedPublicKey',
      message: expect.stringMatching(message),
    });
  });

  it('refuses an unknown network or merchant', async () => {
    const network = await putDepositKey(t.url, 'shop', 'solana', PUBLISHED.evm.key);
    expect(expectEnvelope(network, 400, 'INVALID_PARAMETER')[0].field).toBe('network');
    expectEnvelope(
      await putDepositKey(t.url, 'nobody', 'evm', PUBLISHED.evm.key),
      404,
      'NOT_FOUND',
    );
  });

  it("refuses another merchant's key with a 409, even after that merchant removed it", async () => {
    const taken = await putDepositKey(t.url, 'other', 'tron', PUBLISHED.tron.key);
    expectEnvelope(taken, 409, 'CONFLICT');
    expect((await removeKey('shop', 'tron')).status).toBe(204);
    expectEnvelope(
      await putDepositKey(t.url, 'other', 'tron', PUBLISHED.tron.key),
      409,
      'CONFLICT',
    );
    // The same key for another network of the same merchant is refused too.
    const otherNetwork = await putDepositKey(t.url, 'shop', 'evm', PUBLISHED.tron.key);
    expectEnvelope(otherNetwork, 409, 'CONFLICT');
  });

  it('replaces a key, and takes an earlier one back as the same key', async () => {
    const before = (await keysOf('shop')).body.payload.find(
      (k: { network: string }) => k.network === 'evm',
    );
    const replacement = freshAccount('evm').publicKey;
    const replaced = await putDepositKey(t.url, 'shop', 'evm', replacement);
    expect(replaced.body).toMatchObject({
      extendedPublicKey: replacement,
      addressesGiven: 0,
    });
    const back = await putDepositKey(t.url, 'shop', 'evm', PUBLISHED.evm.key);
    expect(back.body).toEqual(before);
    // Registering the current key again changes nothing.
    expect((await putDepositKey(t.url, 'shop', 'evm', PUBLISHED.evm.key)).body).toEqual(back.body);
  });

  it('removes a key: 204, then 404', async () => {
    const key = freshAccount('tron').publicKey;
    expect((await putDepositKey(t.url, 'other', 'tron', key)).status).toBe(200);
    expect((await removeKey('other', 'tron')).status).toBe(204);
    expect((await keysOf('other')).body.payload.map((k: { network: string }) => k.network)).toEqual(
      ['bitcoin'],
    );
    expectEnvelope(await removeKey('other', 'tron'), 404, 'NOT_FOUND');
  });

  it('needs the admin role to change keys and viewer to read them', async () => {
    const viewer = await createOperator(t, 'key-viewer', 'viewer');
    const catalog = await createOperator(t, 'key-catalog', 'catalog');
    const headers = (token: string) => ({ authorization: `Bearer ${token}` });
    const listed = await http(`${t.url}/admin/merchants/shop/deposit-keys`, {
      headers: headers(viewer.token),
    });
    expect(listed.status).toBe(200);
    const put = await http(`${t.url}/admin/merchants/shop/deposit-keys/evm`, {
      method: 'PUT',
      headers: headers(catalog.token),
      body: { extendedPublicKey: PUBLISHED.evm.key },
    });
    expectEnvelope(put, 403, 'FORBIDDEN');
  });

  it('audits each change with the fingerprint, never the key', async () => {
    const events = await http(`${t.url}/admin/audit-events?target=shop/evm&size=100`, {
      headers: adminHeaders,
    });
    expect(events.status).toBe(200);
    const actions = events.body.payload.map((e: { action: string }) => e.action);
    expect(actions).toContain('putDepositKey');
    for (const event of events.body.payload) {
      expect(Object.keys(event.changes)).toEqual(['fingerprint']);
    }
    expect(events.text).not.toContain(PUBLISHED.evm.key);
  });
});

/**
 * Private key material where a public key belongs: a 400 that says why, and no trace of the value
 * in the answer, the audit trail, the log or the database's files.
 */
describe('private keys given as deposit keys (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({}, { captureLogs: true });
    await t.seed({ merchants: [{ id: 'shop', name: 'Shop' }] });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses every kind and keeps none of them anywhere', async () => {
    const secrets = privateKeyMaterial();
    for (const [kind, { network, value }] of Object.entries(secrets)) {
      const r = await putDepositKey(t.url, 'shop', network, value);
      const [error] = expectEnvelope(r, 400, 'INVALID_PARAMETER');
      expect({ kind, field: error.field }).toEqual({ kind, field: 'extendedPublicKey' });
      expect(error.message).toContain(WATCH_ONLY);
      expect(r.text).not.toContain(secret(value));
    }
    // Put where the network belongs in the path: refused as a network, and the URL logged cut.
    const inPath = await putDepositKey(t.url, 'shop', secrets.xprv.value, PUBLISHED.evm.key);
    expectEnvelope(inPath, 400, 'INVALID_PARAMETER');
    expect(
      (await http(`${t.url}/admin/merchants/shop/deposit-keys`, { headers: adminHeaders })).body,
    ).toEqual({
      payload: [],
    });
    const audit = await http(`${t.url}/admin/audit-events?size=100`, { headers: adminHeaders });
    expect(audit.status).toBe(200);
    // The requests were logged (their completion lines), without the values.
    const logged = () => t.logs.filter((line) => line.includes('deposit-keys')).length;
    await waitFor(() => logged() > Object.keys(secrets).length);
    expect(logged()).toBeGreaterThan(Object.keys(secrets).length);
    const logs = t.logs.join('\n');
    const stored = await t.dump();
    for (const [kind, { value }] of Object.entries(secrets)) {
      const text = secret(value);
      expect({ kind, inAudit: audit.text.includes(text) }).toEqual({ kind, inAudit: false });
      expect({ kind, inLogs: logs.includes(text) }).toEqual({ kind, inLogs: false });
      expect({ kind, inDatabase: stored.includes(text) }).toEqual({ kind, inDatabase: false });
    }
  });
});

/** The part of a value that identifies it (a phrase's words without the numbering). */
function secret(value: string): string {
  return value.trim();
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/** A fresh testnet account key (tpub). */
function freshTpub(): string {
  const versions = versionsOf('tpub');
  return HDKey.fromMasterSeed(randomBytes(32), versions).derive("m/44'/60'/0'").publicExtendedKey;
}

/** The key with one character changed: the checksum no longer holds. */
function mistyped(key: string): string {
  const i = 40;
  return key.slice(0, i) + (key[i] === 'A' ? 'B' : 'A') + key.slice(i + 1);
}

const WORDS = (
  'apple river stone cloud maple orbit candle velvet hammer lantern pepper frost meadow cobalt ' +
  'sunset ribbon garden harbor violet timber silver canyon marble willow thunder falcon copper ' +
  'island jungle kettle ladder magnet nectar oyster pillow quartz rocket saddle tunnel umbrella'
).split(' ');

function phrase(words: number): string {
  return Array.from({ length: words }, () => WORDS[randomBytes(1)[0] % WORDS.length]).join(' ');
}

/** Fresh private key material of each kind an operator might paste, and the network it is sent for. */
function privateKeyMaterial(): Record<string, { network: string; value: string }> {
  const seed = randomBytes(32);
  const evm = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'");
  const zprv = HDKey.fromMasterSeed(seed, versionsOf('zpub')).derive("m/84'/0'/0'");
  const secretKey = randomBytes(32);
  const wif = createBase58check(sha256);
  return {
    xprv: { network: 'evm', value: evm.privateExtendedKey },
    zprv: { network: 'bitcoin', value: zprv.privateExtendedKey },
    wifCompressed: {
      network: 'bitcoin',
      value: wif.encode(Uint8Array.of(0x80, ...secretKey, 0x01)),
    },
    wifUncompressed: {
      network: 'bitcoin',
      value: wif.encode(Uint8Array.of(0x80, ...randomBytes(32))),
    },
    rawHex: { network: 'tron', value: hex.encode(randomBytes(32)) },
    rawHex0x: { network: 'evm', value: `0x${hex.encode(randomBytes(32))}` },
    phrase12: { network: 'evm', value: phrase(12) },
    phrase24: { network: 'bitcoin', value: phrase(24) },
    xprvInText: {
      network: 'tron',
      value: `my key: ${HDKey.fromMasterSeed(randomBytes(32)).privateExtendedKey}`,
    },
  };
}
