import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { wordlist as japanese } from '@scure/bip39/wordlists/japanese.js';
import { EXTENDED_KEY_VERSIONS, KEY_DATA_OFFSET } from './extended-key-versions.js';
import {
  classifyAccountKey,
  KeyRefusalReason,
  KeyVerdict,
  storedAccountKey,
  WATCH_ONLY_KEYS_ONLY,
} from './extended-keys.js';
import { acceptedKeysText, DEPOSIT_NETWORKS, DepositNetwork } from './networks.js';

const base58check = createBase58check(sha256);

/** The standard test phrase's keys, as BIP84 and SLIP-132 print them. */
const PHRASE =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** Another of BIP39's test phrases. */
const OTHER_PHRASE = 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong';
const BIP84_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const BIP84_ZPRV =
  'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';
const BIP84_ROOT_ZPUB =
  'zpub6jftahH18ngZxLmXaKw3GSZzZsszmt9WqedkyZdezFtWRFBZqsQH5hyUmb4pCEeZGmVfQuP5bedXTB8is6fTv19U1GQRyQUKQGUTzyHACMF';
const BIP84_FIRST_WIF = 'KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d';
const BIP84_FIRST_PUBKEY = '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c';
const SLIP132_XPUB =
  'xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj';
const SLIP132_YPUB =
  'ypub6Ww3ibxVfGzLrAH1PNcjyAWenMTbbAosGNB6VvmSEgytSER9azLDWCxoJwW7Ke7icmizBMXrzBx9979FfaHxHcrArf3zbeJJJUZPf663zsP';
const SLIP132_YPRV =
  'yprvAHwhK6RbpuS3dgCYHM5jc2ZvEKd7Bi61u9FVhYMpgMSuZS613T1xxQeKTffhrHY79hZ5PsskBjcc6C2V7DrnsMsNaGDaWev3GLRQRgV7hxF';

/** BIP32's test vector 1 (seed 000102...0f) and 2, and the invalid keys of vector 5. */
const V1_M =
  'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';
const V1_M_XPRV =
  'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
const V1_0H =
  'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw';
const V1_0H_1_2H =
  'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5';
const V1_0H_1_2H_2 =
  'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV';
const V2_0_2147483647H_1 =
  'xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon';
const V5_PUB_VERSION_PRIVATE_KEY =
  'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6LBpB85b3D2yc8sfvZU521AAwdZafEz7mnzBBsz4wKY5fTtTQBm';
const V5_PRV_VERSION_PUBLIC_KEY =
  'xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFGTQQD3dC4H2D5GBj7vWvSQaaBv5cxi9gafk7NF3pnBju6dwKvH';
/** Vector 5's two keys of an unknown version: the first holds a private key, the second a public one. */
const V5_UNKNOWN_VERSION_PRIVATE =
  'DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHGMQzT7ayAmfo4z3gY5KfbrZWZ6St24UVf2Qgo6oujFktLHdHY4';
const V5_UNKNOWN_VERSION_PUBLIC =
  'DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHPmHJiEDXkTiJTVV9rHEBUem2mwVbbNfvT2MTcAqj3nesx8uBf9';
const V5_XPRV_BAD_CHECKSUM =
  'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHL';
/** Bitcoin wiki's "Wallet import format" example: an uncompressed mainnet WIF. */
const WIKI_UNCOMPRESSED_WIF = '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ';

/** A published key's payload under other version bytes, checksum made anew. */
function withVersion(key: string, version: number): string {
  const payload = base58check.decode(key);
  new DataView(payload.buffer, payload.byteOffset).setUint32(0, version);
  return base58check.encode(payload);
}

/** A published account key with other key data (33 bytes), checksum made anew. */
function withKeyData(key: string, keyData: Uint8Array): string {
  const payload = base58check.decode(key);
  payload.set(keyData, KEY_DATA_OFFSET);
  return base58check.encode(payload);
}

function refusalOf(verdict: KeyVerdict): { reason: KeyRefusalReason; material?: string } {
  expect(verdict.key).toBeUndefined();
  return { reason: verdict.refusal!.reason, material: verdict.refusal!.privateKeyMaterial };
}

/** Every 8-character piece of the text (white space aside) is absent from what is returned. */
function expectNoEcho(verdict: KeyVerdict, text: string): void {
  const returned = JSON.stringify(verdict);
  const compact = text.replace(/\s+/g, '');
  for (let i = 0; i + 8 <= compact.length; i++) {
    expect(returned).not.toContain(compact.slice(i, i + 8));
  }
}

describe('account keys', () => {
  it('takes the BIP84 zpub and the BIP44 xpub for bitcoin, as the wallet exports them', () => {
    const zpub = classifyAccountKey('bitcoin', `  ${BIP84_ZPUB}\n`);
    expect(zpub.refusal).toBeUndefined();
    expect(zpub.key).toMatchObject({
      network: 'bitcoin',
      extendedPublicKey: BIP84_ZPUB,
      format: { prefix: 'zpub', standard: 'BIP84', addressKind: 'p2wpkh' },
    });
    expect(zpub.key!.fingerprint).toMatch(/^[0-9a-f]{8}$/);
    const xpub = classifyAccountKey('bitcoin', SLIP132_XPUB);
    expect(xpub.key?.format).toMatchObject({ prefix: 'xpub', addressKind: 'p2pkh' });
  });

  it('takes an account xpub for evm and tron', () => {
    expect(classifyAccountKey('evm', SLIP132_XPUB).key?.format.addressKind).toBe('evm');
    expect(classifyAccountKey('tron', SLIP132_XPUB).key?.format.addressKind).toBe('tron');
  });

  it("gives the key's own fingerprint: the one its children carry as their parent's", () => {
    // BIP32 vector 1: m/0H/1/2H is an account-level key (depth 3, hardened index).
    const key = classifyAccountKey('bitcoin', V1_0H_1_2H).key!;
    const child = base58check.decode(V1_0H_1_2H_2);
    expect(key.fingerprint).toBe(Buffer.from(child.subarray(5, 9)).toString('hex'));
  });

  it('refuses a key form the network does not take', () => {
    expect(refusalOf(classifyAccountKey('bitcoin', SLIP132_YPUB))).toEqual({
      reason: 'not-offered',
    });
    expect(refusalOf(classifyAccountKey('evm', BIP84_ZPUB)).reason).toBe('not-offered');
    expect(refusalOf(classifyAccountKey('tron', BIP84_ZPUB)).reason).toBe('not-offered');
    for (const prefix of ['Ypub', 'Zpub']) {
      const version = EXTENDED_KEY_VERSIONS.find((entry) => entry.prefix === prefix)!.public;
      const key = withVersion(BIP84_ZPUB, version);
      expect(key.startsWith(prefix)).toBe(true);
      expect(refusalOf(classifyAccountKey('bitcoin', key)).reason).toBe('not-offered');
    }
  });

  it.each(['tpub', 'upub', 'vpub', 'Upub', 'Vpub'])('refuses a testnet %s', (prefix) => {
    const version = EXTENDED_KEY_VERSIONS.find((entry) => entry.prefix === prefix)!.public;
    const key = withVersion(BIP84_ZPUB, version);
    expect(key.startsWith(prefix)).toBe(true);
    for (const network of DEPOSIT_NETWORKS) {
      expect(refusalOf(classifyAccountKey(network, key)).reason).toBe('testnet');
    }
  });

  it('writes each version with the prefix it is named by', () => {
    for (const { prefix, public: pub, private: prv } of EXTENDED_KEY_VERSIONS) {
      expect(withVersion(BIP84_ZPUB, pub).slice(0, 4)).toBe(prefix);
      expect(withVersion(BIP84_ZPUB, prv).slice(0, 4)).toBe(prefix.replace('pub', 'prv'));
    }
  });

  it('refuses a key that is not an account key', () => {
    for (const key of [V1_M, V1_0H, V1_0H_1_2H_2, BIP84_ROOT_ZPUB, V2_0_2147483647H_1]) {
      const network = key.startsWith('z') ? 'bitcoin' : 'evm';
      expect(refusalOf(classifyAccountKey(network, key)).reason).toBe('not-account-level');
    }
  });

  it('refuses a mistyped key for its checksum', () => {
    const last = BIP84_ZPUB.at(-1) === 's' ? 't' : 's';
    const mistyped = BIP84_ZPUB.slice(0, -1) + last;
    expect(refusalOf(classifyAccountKey('bitcoin', mistyped)).reason).toBe('bad-checksum');
    const swapped =
      BIP84_ZPUB.slice(0, 20) + BIP84_ZPUB[21] + BIP84_ZPUB[20] + BIP84_ZPUB.slice(22);
    expect(refusalOf(classifyAccountKey('bitcoin', swapped)).reason).toBe('bad-checksum');
  });

  it('refuses an account key whose key data is not a point of the curve', () => {
    const notOnCurve = Uint8Array.from(Buffer.from(`02${'00'.repeat(31)}07`, 'hex'));
    const prefix04 = Uint8Array.from(Buffer.from(`04${BIP84_FIRST_PUBKEY.slice(2)}`, 'hex'));
    for (const data of [notOnCurve, prefix04]) {
      const key = withKeyData(BIP84_ZPUB, data);
      expect(refusalOf(classifyAccountKey('bitcoin', key)).reason).toBe('invalid-key');
    }
  });

  it.each([
    ['empty', ''],
    ['a word', 'hello'],
    ['a prefix alone', 'zpub'],
    ['an address', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
    ['a public key in hex', BIP84_FIRST_PUBKEY],
    ['an unknown version (BIP32 vector 5)', V5_UNKNOWN_VERSION_PUBLIC],
    ['a quoted key', `"${BIP84_ZPUB}"`],
    ['two keys', `${BIP84_ZPUB} ${BIP84_ZPUB}`],
    ['eleven words', PHRASE.split(' ').slice(1).join(' ')],
    ['a long text', 'z'.repeat(100_000)],
  ])('refuses %s as no extended public key', (_, text) => {
    expect(refusalOf(classifyAccountKey('bitcoin', text))).toEqual({ reason: 'unreadable' });
  });

  it('reads back a stored key, and fails loudly on one that should never have been stored', () => {
    expect(storedAccountKey('bitcoin', BIP84_ZPUB).format.prefix).toBe('zpub');
    expect(() => storedAccountKey('bitcoin', BIP84_ZPRV)).toThrow(/private-key/);
    expect(() => storedAccountKey('bitcoin', BIP84_ZPRV)).not.toThrow(BIP84_ZPRV.slice(4, 20));
  });
});

describe('private key material', () => {
  const decodedWif = base58check.decode(BIP84_FIRST_WIF);
  const rawKey = Buffer.from(decodedWif.subarray(1, 33)).toString('hex');
  const wif = (version: number, compressed: boolean): string =>
    base58check.encode(
      Uint8Array.of(version, ...decodedWif.subarray(1, 33), ...(compressed ? [1] : [])),
    );

  it.each([
    ['the BIP84 account zprv', BIP84_ZPRV],
    ["BIP32 vector 1's master xprv", V1_M_XPRV],
    ["SLIP-132's yprv", SLIP132_YPRV],
    ['a tprv', withVersion(V1_M_XPRV, 0x04358394)],
    ['a vprv', withVersion(BIP84_ZPRV, 0x045f18bc)],
    ['an xpub whose payload is a private key (BIP32 vector 5)', V5_PUB_VERSION_PRIVATE_KEY],
    ['an xprv version over a public key (BIP32 vector 5)', V5_PRV_VERSION_PUBLIC_KEY],
    ['an xprv with a bad checksum (BIP32 vector 5)', V5_XPRV_BAD_CHECKSUM],
    ['a private key under an unknown version (BIP32 vector 5)', V5_UNKNOWN_VERSION_PRIVATE],
    ['a zprv inside JSON', `{"zprv": "${BIP84_ZPRV}"}`],
  ])('refuses %s as an extended private key', (_, text) => {
    for (const network of DEPOSIT_NETWORKS) {
      const verdict = classifyAccountKey(network, text);
      expect(refusalOf(verdict)).toEqual({
        reason: 'private-key',
        material: 'extended-private-key',
      });
      expectNoEcho(verdict, text);
    }
  });

  it.each([
    ["BIP84's compressed mainnet WIF", BIP84_FIRST_WIF],
    ['an uncompressed mainnet WIF', WIKI_UNCOMPRESSED_WIF],
    ['a compressed testnet WIF', wif(0xef, true)],
    ['an uncompressed testnet WIF', wif(0xef, false)],
    ['a WIF with a typo', BIP84_FIRST_WIF.slice(0, -1) + 'e'],
  ])('refuses %s', (_, text) => {
    const verdict = classifyAccountKey('bitcoin', text);
    expect(refusalOf(verdict)).toEqual({ reason: 'private-key', material: 'wif' });
    expectNoEcho(verdict, text);
  });

  it('writes the constructed WIFs as wallets do', () => {
    expect(wif(0x80, true)).toBe(BIP84_FIRST_WIF);
    expect(wif(0xef, true)[0]).toBe('c');
    expect(wif(0xef, false)[0]).toBe('9');
    expect(wif(0x80, false)[0]).toBe('5');
  });

  it.each([
    ['lower case', rawKey],
    ['with 0x', `0x${rawKey}`],
    ['upper case', rawKey.toUpperCase()],
  ])('refuses a raw 32-byte hex key, %s', (_, text) => {
    const verdict = classifyAccountKey('evm', text);
    expect(refusalOf(verdict)).toEqual({ reason: 'private-key', material: 'raw-hex-key' });
    expectNoEcho(verdict, text);
  });

  it.each([
    ['the standard test phrase', PHRASE],
    ['a 24-word English phrase', generateMnemonic(english, 256)],
    ['a 15-word phrase', generateMnemonic(english, 160)],
    ['a Japanese phrase', generateMnemonic(japanese, 128)],
    [
      'a numbered phrase on lines',
      PHRASE.split(' ')
        .map((w, i) => `${i + 1}. ${w}`)
        .join('\n'),
    ],
    ['a phrase with commas', PHRASE.split(' ').join(', ')],
    ['an upper-case phrase', PHRASE.toUpperCase()],
  ])('refuses %s as a recovery phrase, in words that are the same for any phrase', (_, text) => {
    for (const network of DEPOSIT_NETWORKS) {
      const verdict = classifyAccountKey(network, text);
      expect(refusalOf(verdict)).toEqual({ reason: 'private-key', material: 'mnemonic' });
      expect(verdict).toEqual(classifyAccountKey(network, OTHER_PHRASE));
      expect(JSON.stringify(verdict)).not.toMatch(/abandon|about/i);
    }
  });

  it('says that the gateway takes watch-only public keys only, and what the network takes', () => {
    const verdict = classifyAccountKey('tron', BIP84_ZPRV);
    expect(verdict.refusal!.message).toBe(
      `${WATCH_ONLY_KEYS_ONLY}, and this is an extended private key: it was not kept. TRON takes an account xpub of m/44'/195'/account' (BIP44).`,
    );
  });
});

describe('refusal messages', () => {
  it.each(DEPOSIT_NETWORKS.map((network) => [network]))(
    'tell the %s operator what the network takes, for every reason',
    (network: DepositNetwork) => {
      const texts = ['', BIP84_ZPRV, withVersion(BIP84_ZPUB, 0x045f1cf6), V1_M, SLIP132_YPUB];
      const messages = new Set<string>();
      for (const text of texts) {
        const message = classifyAccountKey(network, text).refusal!.message;
        expect(message).toContain(acceptedKeysText(network));
        messages.add(message);
      }
      expect(messages.size).toBe(texts.length);
    },
  );
});
