import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bech32, createBase58check, hex } from '@scure/base';
import { AddressKind, DepositNetwork } from './networks.js';

/** Base58 with a 4-byte double-SHA-256 checksum: bitcoin's legacy addresses, TRON, BIP32. */
export const base58check = createBase58check(sha256);

/** P2PKH's version byte on bitcoin's mainnet ("1..."). */
const P2PKH_VERSION = 0x00;
/** TRON's address prefix byte ("T..."). */
const TRON_PREFIX = 0x41;
const SEGWIT_V0 = 0;

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/**
 * A receive address from its compressed public key and that key's hash160 (BIP32's identifier):
 * bitcoin P2WPKH (BIP84, bech32 `bc1q...`) or P2PKH (BIP44, `1...`); EVM's keccak-256 address,
 * EIP-55 checksummed; TRON's base58check of 0x41 and the same 20 bytes.
 */
export function addressOf(
  kind: AddressKind,
  publicKey: Uint8Array,
  publicKeyHash: Uint8Array,
): string {
  switch (kind) {
    case 'p2wpkh':
      return bech32.encode('bc', [SEGWIT_V0, ...bech32.toWords(publicKeyHash)]);
    case 'p2pkh':
      return base58check.encode(Uint8Array.of(P2PKH_VERSION, ...publicKeyHash));
    case 'evm':
      return eip55(hex.encode(keccakAddress(publicKey)));
    case 'tron':
      return base58check.encode(Uint8Array.of(TRON_PREFIX, ...keccakAddress(publicKey)));
  }
}

/**
 * A token contract in its network's form, or undefined: on EVM chains 0x and 40 hex digits, in
 * one case or EIP-55's mixed case (which must then be right), given back checksummed; on TRON a
 * base58check address of 0x41 and 20 bytes. Bitcoin has no token contracts.
 */
export function tokenContractOf(network: DepositNetwork, text: string): string | undefined {
  switch (network) {
    case 'bitcoin':
      return undefined;
    case 'evm':
      return evmAddressOf(text);
    case 'tron':
      return tronAddressOf(text);
  }
}

function evmAddressOf(text: string): string | undefined {
  if (!EVM_ADDRESS.test(text)) return undefined;
  const digits = text.slice(2);
  const lower = digits.toLowerCase();
  if (/^0+$/.test(lower)) return undefined;
  const checksummed = eip55(lower);
  const oneCase = digits === lower || digits === digits.toUpperCase();
  return oneCase || text === checksummed ? checksummed : undefined;
}

function tronAddressOf(text: string): string | undefined {
  if (!TRON_ADDRESS.test(text)) return undefined;
  try {
    const bytes = base58check.decode(text);
    return bytes.length === 21 && bytes[0] === TRON_PREFIX ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The last 20 bytes of keccak-256 of the uncompressed public key without its 0x04 byte. */
function keccakAddress(compressedPublicKey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(compressedPublicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/**
 * EIP-55: a hex letter of the address is upper case where the matching nibble of keccak-256 of
 * the lower-case hex text is 8 or more.
 */
function eip55(lowerHex: string): string {
  const hash = hex.encode(keccak_256(new TextEncoder().encode(lowerHex)));
  let out = '0x';
  for (let i = 0; i < lowerHex.length; i++) {
    out += parseInt(hash[i], 16) >= 8 ? lowerHex[i].toUpperCase() : lowerHex[i];
  }
  return out;
}
