import { tokenContractOf } from './chain-address.js';
import { DepositNetwork, isDepositNetwork, NETWORK_RULES } from './networks.js';

/** The largest chain id taken (a 32-bit column; every major EVM chain's id is far below it). */
export const MAX_CHAIN_ID = 2_147_483_647;

/** The most confirmations a pair may ask for (a day and more of blocks on any of the networks). */
export const MAX_CONFIRMATIONS = 10_000;

/**
 * How a catalog pair is paid on chain: the network, the EVM chain, the token (absent for the
 * network's own coin), the asset's on-chain decimals and the confirmations a deposit needs
 * before it counts.
 */
export interface Settlement {
  network: DepositNetwork;
  /** EVM only: 1 (Ethereum), 56 (BNB Chain), 137 (Polygon), … */
  chainId?: number;
  /** The token's contract in the network's address form (EIP-55 on EVM chains). */
  tokenContract?: string;
  decimals: number;
  confirmations: number;
}

/** What a settlement's chain id must be, for the network named beside it. */
export function chainIdRefusal(network: unknown, chainId: unknown): string | undefined {
  if (network !== 'evm' && chainId !== undefined) return 'is taken on evm only';
  return undefined;
}

/** What a settlement's token contract must be, for the network named beside it. */
export function tokenContractRefusal(network: unknown, contract: unknown): string | undefined {
  if (!isDepositNetwork(network)) return undefined; // the network's own rule says what is wrong
  const rules = NETWORK_RULES[network];
  if (!rules.tokenContractForm) return `is not taken on ${network}: it has no tokens`;
  if (typeof contract !== 'string' || tokenContractOf(network, contract) === undefined) {
    return `must be a token contract on ${rules.label}: ${rules.tokenContractForm}`;
  }
  return undefined;
}

/** What the decimals of a network's own coin must be (a token's are its own). */
export function decimalsRefusal(
  network: unknown,
  tokenContract: unknown,
  decimals: unknown,
): string | undefined {
  if (!isDepositNetwork(network) || tokenContract !== undefined) return undefined;
  const own = NETWORK_RULES[network].nativeDecimals;
  return decimals === own
    ? undefined
    : `must be ${own} for ${NETWORK_RULES[network].label}'s own coin`;
}

/** A settlement as it is stored: the token contract in its network's canonical form. */
export function canonicalSettlement(settlement: Settlement): Settlement {
  const { network, chainId, tokenContract, decimals, confirmations } = settlement;
  const contract =
    tokenContract === undefined ? undefined : tokenContractOf(network, tokenContract);
  return {
    network,
    ...(chainId === undefined ? {} : { chainId }),
    ...(contract === undefined ? {} : { tokenContract: contract }),
    decimals,
    confirmations,
  };
}

/** What a watcher reports as the asset of a transfer of the network's own coin. */
export const NATIVE_ASSET = 'native';
