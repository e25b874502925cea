import { HARDENED_OFFSET, HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import {
  MAX_ADDRESS_INDEX,
  publicDescendant,
  receiveAddress,
  receiveAddresses,
} from './deposit-address.js';
import { AccountKey, classifyAccountKey } from './extended-keys.js';
import { DepositNetwork } from './networks.js';
import { SANDBOX_DEPOSIT_KEYS } from './sandbox-keys.js';

const PHRASE =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

function accountKey(network: DepositNetwork, text: string): AccountKey {
  const verdict = classifyAccountKey(network, text);
  expect(verdict.refusal).toBeUndefined();
  return verdict.key!;
}

describe('BIP32 public derivation (test vectors 1 and 2, the steps a public key can take)', () => {
  it.each([
    [
      'vector 1: m/0H -> m/0H/1',
      'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
      [1],
      'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
    ],
    [
      'vector 1: m/0H/1/2H -> m/0H/1/2H/2',
      'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
      [2],
      'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
    ],
    [
      'vector 1: m/0H/1/2H -> m/0H/1/2H/2/1000000000',
      'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
      [2, 1000000000],
      'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
    ],
    [
      'vector 2: m -> m/0',
      'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
      [0],
      'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
    ],
    [
      'vector 2: m/0/2147483647H -> m/0/2147483647H/1',
      'xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a',
      [1],
      'xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon',
    ],
    [
      'vector 2: m/0/2147483647H/1/2147483646H -> .../2',
      'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL',
      [2],
      'xpub6FnCn6nSzZAw5Tw7cgR9bi15UV96gLZhjDstkXXxvCLsUXBGXPdSnLFbdpq8p9HmGsApME5hQTZ3emM2rnY5agb9rXpVGyy3bdW6EEgAtqt',
    ],
  ])('%s', (_, parent, path, child) => {
    expect(publicDescendant(parent, path)).toBe(child);
  });

  it('refuses a hardened step, which needs the private key', () => {
    const m =
      'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';
    expect(() => publicDescendant(m, [HARDENED_OFFSET])).toThrow(RangeError);
  });
});

describe('receive addresses from the extended public key alone', () => {
  it("derives BIP84's first receive addresses from its account zpub", () => {
    const key = accountKey(
      'bitcoin',
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
    );
    expect(receiveAddresses(key, 0, 2)).toEqual([
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
    ]);
  });

  it("derives SLIP-132's first BIP44 address from its account xpub", () => {
    const key = accountKey(
      'bitcoin',
      'xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj',
    );
    expect(receiveAddress(key, 0)).toBe('1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA');
  });

  it("derives the test phrase's well-known EVM addresses, EIP-55 checksummed", () => {
    expect(receiveAddresses(accountKey('evm', SANDBOX_DEPOSIT_KEYS.evm), 0, 3)).toEqual([
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0',
      '0xb6716976A3ebe8D39aCEB04372f22Ff8e6802D7A',
    ]);
  });

  it("derives the test phrase's well-known TRON addresses", () => {
    expect(receiveAddresses(accountKey('tron', SANDBOX_DEPOSIT_KEYS.tron), 0, 2)).toEqual([
      'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
    ]);
  });

  it('gives one address an index, whether derived alone or in a run', () => {
    const key = accountKey('tron', SANDBOX_DEPOSIT_KEYS.tron);
    const run = receiveAddresses(key, 5, 20);
    expect(new Set(run).size).toBe(20);
    expect(receiveAddress(key, 17)).toBe(run[12]);
  });

  it.each([-1, 1.5, Number.NaN, MAX_ADDRESS_INDEX + 1])('refuses index %s', (index) => {
    const key = accountKey('evm', SANDBOX_DEPOSIT_KEYS.evm);
    expect(() => receiveAddress(key, index)).toThrow(RangeError);
  });

  it('derives the last non-hardened index, and refuses a run past it or of no address', () => {
    const key = accountKey('evm', SANDBOX_DEPOSIT_KEYS.evm);
    expect(receiveAddress(key, MAX_ADDRESS_INDEX)).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(() => receiveAddresses(key, MAX_ADDRESS_INDEX, 2)).toThrow(RangeError);
    expect(() => receiveAddresses(key, 0, 0)).toThrow(RangeError);
  });
});

describe('the sandbox keys', () => {
  it('are the standard test phrase’s account keys', () => {
    const seed = mnemonicToSeedSync(PHRASE);
    const zpubVersions = { public: 0x04b24746, private: 0x04b2430c };
    expect(SANDBOX_DEPOSIT_KEYS).toEqual({
      bitcoin: HDKey.fromMasterSeed(seed, zpubVersions).derive("m/84'/0'/0'").publicExtendedKey,
      evm: HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'").publicExtendedKey,
      tron: HDKey.fromMasterSeed(seed).derive("m/44'/195'/0'").publicExtendedKey,
    });
  });

  it('are accepted for their networks', () => {
    for (const [network, text] of Object.entries(SANDBOX_DEPOSIT_KEYS)) {
      expect(classifyAccountKey(network as DepositNetwork, text).key).toBeDefined();
    }
  });
});
