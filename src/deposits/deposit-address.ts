import { HARDENED_OFFSET, HDKey } from '@scure/bip32';
import { addressOf, base58check } from './chain-address.js';
import { publicVersion, versionOf } from './extended-key-versions.js';
import { AccountKey, accountNode } from './extended-keys.js';

/** The account's external chain: receive addresses (1 is the change chain, never given out). */
const RECEIVE_CHAIN = 0;

/** The largest index a public key derives (higher ones are hardened, private-key only). */
export const MAX_ADDRESS_INDEX = HARDENED_OFFSET - 1;

/** The receive address at `index` of the account's external chain (m/.../account'/0/index). */
export function receiveAddress(key: AccountKey, index: number): string {
  return receiveAddresses(key, index, 1)[0];
}

/** `count` consecutive receive addresses from `first`, the chain's key derived once. */
export function receiveAddresses(key: AccountKey, first: number, count: number): string[] {
  if (!Number.isSafeInteger(count) || count < 1 || first + count - 1 > MAX_ADDRESS_INDEX) {
    throw new RangeError(`No ${count} receive addresses from index ${first}`);
  }
  const chain = receiveChain(key);
  return Array.from({ length: count }, (_, offset) => receiveAddressOn(chain, first + offset));
}

/** An account's external chain (m/.../account'/0), derived: each address is one step below it. */
export interface ReceiveChain {
  readonly key: AccountKey;
  readonly node: HDKey;
}

/** The account's external chain, for a caller that keeps it to give many addresses. */
export function receiveChain(key: AccountKey): ReceiveChain {
  return { key, node: publicChild(accountNode(key), RECEIVE_CHAIN) };
}

/** The receive address at `index` of a chain already derived: one BIP32 step. */
export function receiveAddressOn(chain: ReceiveChain, index: number): string {
  const node = publicChild(chain.node, index);
  return addressOf(chain.key.format.addressKind, node.publicKey!, node.identifier!);
}

/**
 * The extended public key below `extendedPublicKey` along `path`, by BIP32's public derivation
 * (every step non-hardened), in the same version as the key given.
 */
export function publicDescendant(extendedPublicKey: string, path: readonly number[]): string {
  const version = publicVersion(versionOf(base58check.decode(extendedPublicKey)));
  if (!version) throw new Error('Not an extended public key');
  let node = HDKey.fromExtendedKey(extendedPublicKey, version);
  for (const index of path) node = publicChild(node, index);
  return node.publicExtendedKey;
}

/**
 * BIP32 has a child key for all but about 1 in 2^127 indexes and then moves on to the next
 * index: such an index is refused here, so two indexes never share one address.
 */
function publicChild(node: HDKey, index: number): HDKey {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_ADDRESS_INDEX) {
    throw new RangeError(`${index} is not a non-hardened BIP32 index`);
  }
  const child = node.deriveChild(index);
  if (child.index !== index) throw new Error(`BIP32 has no child key at index ${index}`);
  return child;
}
