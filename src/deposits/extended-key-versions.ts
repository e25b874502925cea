/**
 * The version bytes of BIP32 extended keys as wallets export them (SLIP-132's registry for
 * bitcoin): each pair's public and private version, and the chain it is for. A version decides
 * the key's text prefix, so a key is known by these four bytes, never by its first letters.
 */
export interface ExtendedKeyVersion {
  readonly prefix: string;
  readonly public: number;
  readonly private: number;
  readonly chain: 'mainnet' | 'testnet';
}

/** version(4) depth(1) parent fingerprint(4) index(4) chain code(32) key(33). */
export const EXTENDED_KEY_PAYLOAD_BYTES = 78;

/** Where the key data starts: 0x02 or 0x03 and a point's x, or 0x00 and a private key. */
export const KEY_DATA_OFFSET = 45;

/** Base58's alphabet: digits and letters without 0, O, I and l. */
export const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Base58 text longer than this is no key of any kind (an extended key has 111 characters). */
export const MAX_KEY_TEXT_LENGTH = 120;

/** The version bytes an extended key's payload starts with. */
export function versionOf(payload: Uint8Array): number {
  return new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(0);
}

export const EXTENDED_KEY_VERSIONS: readonly ExtendedKeyVersion[] = [
  { prefix: 'xpub', public: 0x0488b21e, private: 0x0488ade4, chain: 'mainnet' },
  { prefix: 'ypub', public: 0x049d7cb2, private: 0x049d7878, chain: 'mainnet' },
  { prefix: 'zpub', public: 0x04b24746, private: 0x04b2430c, chain: 'mainnet' },
  { prefix: 'Ypub', public: 0x0295b43f, private: 0x0295b005, chain: 'mainnet' },
  { prefix: 'Zpub', public: 0x02aa7ed3, private: 0x02aa7a99, chain: 'mainnet' },
  { prefix: 'tpub', public: 0x043587cf, private: 0x04358394, chain: 'testnet' },
  { prefix: 'upub', public: 0x044a5262, private: 0x044a4e28, chain: 'testnet' },
  { prefix: 'vpub', public: 0x045f1cf6, private: 0x045f18bc, chain: 'testnet' },
  { prefix: 'Upub', public: 0x024289ef, private: 0x024285b5, chain: 'testnet' },
  { prefix: 'Vpub', public: 0x02575483, private: 0x02575048, chain: 'testnet' },
];

export function publicVersion(version: number): ExtendedKeyVersion | undefined {
  return EXTENDED_KEY_VERSIONS.find((entry) => entry.public === version);
}

export function isPrivateExtendedKeyVersion(version: number): boolean {
  return EXTENDED_KEY_VERSIONS.some((entry) => entry.private === version);
}

export function versionsOf(prefix: string): ExtendedKeyVersion {
  const entry = EXTENDED_KEY_VERSIONS.find((candidate) => candidate.prefix === prefix);
  if (!entry) throw new Error(`No extended key version has the prefix ${prefix}`);
  return entry;
}
