import { base58 } from '@scure/base';
import {
  BASE58_TEXT,
  EXTENDED_KEY_PAYLOAD_BYTES,
  isPrivateExtendedKeyVersion,
  KEY_DATA_OFFSET,
  MAX_KEY_TEXT_LENGTH,
  versionOf,
} from './extended-key-versions.js';

/**
 * Private key material an operator may paste where a watch-only key belongs. Only its kind is
 * ever returned: the text itself is read here and nowhere kept, so a caller can refuse it without
 * a log line, an answer or a stored row that repeats it.
 */
export type PrivateKeyMaterial = 'extended-private-key' | 'wif' | 'raw-hex-key' | 'mnemonic';

/** 32 bytes in hexadecimal, with or without 0x: a raw secp256k1 or ed25519 private key. */
const RAW_HEX_KEY = /^(?:0x)?[0-9a-f]{64}$/i;

/** The text prefixes of SLIP-132's extended private keys (xprv, yprv, zprv, tprv, Zprv, ...). */
const EXTENDED_PRIVATE_PREFIX = /^[xyztuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112}$/;

/** WIF's version bytes: mainnet 0x80, testnet 0xef. */
const WIF_VERSIONS = new Set([0x80, 0xef]);

/**
 * A recovery phrase: 12 to 24 words of letters in any script (BIP39's lists: English, Japanese,
 * Spanish with its accents, ...), separated by white space or commas, optionally numbered as
 * wallets print them ("1. abandon 2. abandon ..."). Tested as a whole, so no word is taken out.
 */
const WORD = String.raw`(?:\d{1,2}[.):]?\s*)?[\p{L}\p{M}]+`;
const MNEMONIC = new RegExp(String.raw`^(?:${WORD}[\s,]+){11,23}${WORD}$`, 'u');

/** Which private key material the (trimmed) text is or holds, if any. */
export function privateKeyMaterialIn(text: string): PrivateKeyMaterial | undefined {
  if (MNEMONIC.test(text)) return 'mnemonic';
  for (const [token] of text.matchAll(/[^\s,;:"'`()[\]{}<>=]+/g)) {
    const material = privateKeyMaterialOf(token);
    if (material) return material;
  }
  return undefined;
}

/**
 * Judged by shape, before any checksum: a private key with a typo in it is still a secret. An
 * extended key whose key data starts with 0x00 is private whatever its version says.
 */
function privateKeyMaterialOf(token: string): PrivateKeyMaterial | undefined {
  if (RAW_HEX_KEY.test(token)) return 'raw-hex-key';
  if (!BASE58_TEXT.test(token) || token.length > MAX_KEY_TEXT_LENGTH) return undefined;
  if (EXTENDED_PRIVATE_PREFIX.test(token)) return 'extended-private-key';
  const bytes = base58.decode(token);
  // The payload and base58check's 4 checksum bytes.
  if (bytes.length === EXTENDED_KEY_PAYLOAD_BYTES + 4) {
    if (bytes[KEY_DATA_OFFSET] === 0 || isPrivateExtendedKeyVersion(versionOf(bytes))) {
      return 'extended-private-key';
    }
  }
  const compressed = bytes.length === 38 && bytes[33] === 0x01;
  if ((bytes.length === 37 || compressed) && WIF_VERSIONS.has(bytes[0])) return 'wif';
  return undefined;
}
