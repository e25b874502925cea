/**
 * The networks a checkout can be paid on, and each one's rules: the account keys it takes, how
 * its addresses are written, its own coin's decimals, whether it has chain ids and tokens. The
 * rest of src/deposits/ reads networks and their key forms from here, never from a list of its own.
 */
export const DEPOSIT_NETWORKS = ['bitcoin', 'evm', 'tron'] as const;

export type DepositNetwork = (typeof DEPOSIT_NETWORKS)[number];

/** How a receive address is written from its public key. */
export type AddressKind = 'p2wpkh' | 'p2pkh' | 'evm' | 'tron';

/** An account-level extended public key a network takes, as wallets export it. */
export interface AccountKeyFormat {
  /** The extended key's prefix (its SLIP-132 version bytes). */
  readonly prefix: 'xpub' | 'zpub';
  /** The wallet standard that fixes the account's path and its addresses. */
  readonly standard: 'BIP44' | 'BIP84';
  /** The account's path; any account number (hardened) is taken. */
  readonly accountPath: string;
  readonly addressKind: AddressKind;
}

export interface NetworkRules {
  /** The network's name in messages. */
  readonly label: string;
  readonly keyFormats: readonly AccountKeyFormat[];
  /** Decimals of the network's own coin (BTC 8, ETH and the other EVM coins 18, TRX 6). */
  readonly nativeDecimals: number;
  /** Whether a pair names a chain (EVM chains share one address space). */
  readonly hasChainId: boolean;
  /** How a token contract is written on this network; absent when it has no tokens. */
  readonly tokenContractForm?: string;
}

export const NETWORK_RULES: { readonly [N in DepositNetwork]: NetworkRules } = {
  bitcoin: {
    label: 'Bitcoin',
    keyFormats: [
      {
        prefix: 'zpub',
        standard: 'BIP84',
        accountPath: "m/84'/0'/account'",
        addressKind: 'p2wpkh',
      },
      { prefix: 'xpub', standard: 'BIP44', accountPath: "m/44'/0'/account'", addressKind: 'p2pkh' },
    ],
    nativeDecimals: 8,
    hasChainId: false,
  },
  evm: {
    label: 'EVM',
    keyFormats: [
      { prefix: 'xpub', standard: 'BIP44', accountPath: "m/44'/60'/account'", addressKind: 'evm' },
    ],
    nativeDecimals: 18,
    hasChainId: true,
    tokenContractForm: '0x and 40 hexadecimal digits, EIP-55 checksummed when in mixed case',
  },
  tron: {
    label: 'TRON',
    keyFormats: [
      {
        prefix: 'xpub',
        standard: 'BIP44',
        accountPath: "m/44'/195'/account'",
        addressKind: 'tron',
      },
    ],
    nativeDecimals: 6,
    hasChainId: false,
    tokenContractForm: 'a base58check address starting with T',
  },
};

export function isDepositNetwork(value: unknown): value is DepositNetwork {
  return (DEPOSIT_NETWORKS as readonly unknown[]).includes(value);
}

/** "an account zpub of m/84'/0'/account' (BIP84) or xpub of m/44'/0'/account' (BIP44)" */
export function acceptedKeysText(network: DepositNetwork): string {
  const forms = NETWORK_RULES[network].keyFormats.map(
    (format) => `${format.prefix} of ${format.accountPath} (${format.standard})`,
  );
  return `an account ${forms.join(' or ')}`;
}
