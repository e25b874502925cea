import { base58, hex } from '@scure/base';
import { HARDENED_OFFSET, HDKey } from '@scure/bip32';
import {
  BASE58_TEXT,
  EXTENDED_KEY_PAYLOAD_BYTES,
  MAX_KEY_TEXT_LENGTH,
  publicVersion,
  versionOf,
  versionsOf,
} from './extended-key-versions.js';
import { base58check } from './chain-address.js';
import { AccountKeyFormat, acceptedKeysText, DepositNetwork, NETWORK_RULES } from './networks.js';
import { PrivateKeyMaterial, privateKeyMaterialIn } from './private-key-material.js';

/** m / purpose' / coin' / account': the level wallets export a watch-only key at. */
const ACCOUNT_DEPTH = 3;

/** A merchant's watch-only account key, checked and ready to derive receive addresses from. */
export interface AccountKey {
  readonly network: DepositNetwork;
  /** The key as it was given, without the white space around it. */
  readonly extendedPublicKey: string;
  readonly format: AccountKeyFormat;
  /**
   * The key's own BIP32 fingerprint: the first 4 bytes of hash160 of the account's public key,
   * as 8 lower-case hex digits. Not the parent fingerprint the key carries, which every account
   * of the same wallet and coin shares, and not the wallet's master fingerprint, which an account
   * key does not hold: this one names exactly this key (in the audit trail and the merchant's
   * view), and any BIP32 tool computes it from the key. What the operator compares with the
   * wallet is the first receive addresses.
   */
  readonly fingerprint: string;
}

export type KeyRefusalReason =
  | 'private-key'
  | 'testnet'
  | 'not-offered'
  | 'not-account-level'
  | 'bad-checksum'
  | 'invalid-key'
  | 'unreadable';

export interface KeyRefusal {
  readonly reason: KeyRefusalReason;
  /** The kind of private material, for 'private-key' only; the material itself is never kept. */
  readonly privateKeyMaterial?: PrivateKeyMaterial;
  /** What the operator is told; it never repeats the text given. */
  readonly message: string;
}

export type KeyVerdict =
  | { readonly key: AccountKey; readonly refusal?: undefined }
  | { readonly key?: undefined; readonly refusal: KeyRefusal };

export const WATCH_ONLY_KEYS_ONLY = 'The gateway takes watch-only public keys only';

const PRIVATE_KEY_MATERIAL_NAMES: { readonly [M in PrivateKeyMaterial]: string } = {
  'extended-private-key': 'an extended private key',
  wif: 'a private key in wallet import format (WIF)',
  'raw-hex-key': 'a raw private key',
  mnemonic: 'a recovery phrase',
};

const REFUSALS: { readonly [R in Exclude<KeyRefusalReason, 'private-key'>]: string } = {
  testnet: 'This is a testnet key; the gateway takes mainnet keys only.',
  'not-offered': 'This kind of extended public key is not taken for this network.',
  'not-account-level':
    'This is not an account-level key: give the key of the account itself (depth 3, hardened account number), as the wallet exports it.',
  'bad-checksum': "The key's checksum does not match: it was mistyped or cut short.",
  'invalid-key': 'The key does not hold a valid secp256k1 public key.',
  unreadable: 'This is not an extended public key.',
};

/** The one source of the answers to a refused key. */
export function keyRefusalMessage(
  network: DepositNetwork,
  reason: KeyRefusalReason,
  material?: PrivateKeyMaterial,
): string {
  const accepted = `${NETWORK_RULES[network].label} takes ${acceptedKeysText(network)}.`;
  if (reason === 'private-key') {
    const name = PRIVATE_KEY_MATERIAL_NAMES[material ?? 'extended-private-key'];
    return `${WATCH_ONLY_KEYS_ONLY}, and this is ${name}: it was not kept. ${accepted}`;
  }
  return `${REFUSALS[reason]} ${accepted}`;
}

/**
 * Reads what an operator gives as a network's extended public key: a mainnet account key of a
 * form the network takes, checksum and public key verified. Private key material is recognised
 * first, anywhere in the text, and refused as such. Which coin's path an xpub was derived on
 * cannot be told from the key: the first receive addresses, shown to the operator, tell.
 */
export function classifyAccountKey(network: DepositNetwork, text: string): KeyVerdict {
  const given = text.trim();
  const material = privateKeyMaterialIn(given);
  if (material) return refused(network, 'private-key', material);
  if (!BASE58_TEXT.test(given) || given.length > MAX_KEY_TEXT_LENGTH) {
    return refused(network, 'unreadable');
  }
  if (base58.decode(given).length !== EXTENDED_KEY_PAYLOAD_BYTES + 4) {
    return refused(network, 'unreadable');
  }
  let payload: Uint8Array;
  try {
    payload = base58check.decode(given);
  } catch {
    return refused(network, 'bad-checksum');
  }
  const version = publicVersion(versionOf(payload));
  if (!version) return refused(network, 'unreadable');
  if (version.chain === 'testnet') return refused(network, 'testnet');
  const format = NETWORK_RULES[network].keyFormats.find((f) => f.prefix === version.prefix);
  if (!format) return refused(network, 'not-offered');
  const index = new DataView(payload.buffer, payload.byteOffset).getUint32(9);
  if (payload[4] !== ACCOUNT_DEPTH || index < HARDENED_OFFSET) {
    return refused(network, 'not-account-level');
  }
  let node: HDKey;
  try {
    node = HDKey.fromExtendedKey(given, versionsOf(format.prefix));
  } catch {
    return refused(network, 'invalid-key');
  }
  return { key: { network, extendedPublicKey: given, format, fingerprint: fingerprintOf(node) } };
}

/** A key read back from storage, where only keys classifyAccountKey accepted are kept. */
export function storedAccountKey(network: DepositNetwork, text: string): AccountKey {
  const verdict = classifyAccountKey(network, text);
  if (verdict.refusal) {
    throw new Error(`A stored ${network} deposit key is refused: ${verdict.refusal.reason}`);
  }
  return verdict.key;
}

/** The key's BIP32 node, public only. */
export function accountNode(key: AccountKey): HDKey {
  return HDKey.fromExtendedKey(key.extendedPublicKey, versionsOf(key.format.prefix));
}

/** BIP32's key identifier (hash160 of the public key), its first 4 bytes in hex. */
function fingerprintOf(node: HDKey): string {
  return hex.encode(node.identifier!.subarray(0, 4));
}

function refused(
  network: DepositNetwork,
  reason: KeyRefusalReason,
  material?: PrivateKeyMaterial,
): KeyVerdict {
  const message = keyRefusalMessage(network, reason, material);
  return {
    refusal: material ? { reason, privateKeyMaterial: material, message } : { reason, message },
  };
}
