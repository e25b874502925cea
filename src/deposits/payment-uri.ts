import { tokenContractOf } from './chain-address.js';
import { formatAtomicUnits } from './crypto-amount.js';
import { DepositNetwork, NETWORK_RULES } from './networks.js';

/** What a shopper's wallet is asked to send: the amount in atomic units, to a deposit address. */
export interface PaymentRequest {
  readonly network: DepositNetwork;
  readonly address: string;
  readonly amount: bigint;
  readonly decimals: number;
  /** The EVM chain (1, 56, 137, ...); only on evm. */
  readonly chainId?: number;
  /** The token's contract; absent for the network's own coin. */
  readonly tokenContract?: string;
}

/** Addresses the gateway derives hold letters and digits only, so none can break the URI. */
const ADDRESS_TEXT = /^(?:0x)?[0-9A-Za-z]{20,90}$/;

/**
 * The URI a wallet opens or scans: bitcoin BIP21 `bitcoin:<address>?amount=<BTC>`; an EVM
 * chain's coin EIP-681 `ethereum:<address>@<chainId>?value=<wei>`; an EVM token EIP-681's
 * `ethereum:<contract>@<chainId>/transfer?address=<address>&uint256=<atomic units>`; TRON the
 * address alone, which its wallets read (they have no standard payment URI).
 */
export function paymentUri(request: PaymentRequest): string {
  const { network, address, amount, decimals, chainId, tokenContract } = request;
  const rules = NETWORK_RULES[network];
  if (!ADDRESS_TEXT.test(address)) throw new RangeError('Not a deposit address');
  if (amount <= 0n) throw new RangeError('A payment asks for more than nothing');
  if (rules.hasChainId !== (chainId !== undefined)) {
    throw new RangeError(
      `A chain id is ${rules.hasChainId ? 'needed' : 'not taken'} on ${network}`,
    );
  }
  if (chainId !== undefined && (!Number.isSafeInteger(chainId) || chainId < 1)) {
    throw new RangeError('A chain id is a positive integer');
  }
  if (tokenContract === undefined && decimals !== rules.nativeDecimals) {
    throw new RangeError(`${rules.label}'s own coin has ${rules.nativeDecimals} decimals`);
  }
  const contract =
    tokenContract === undefined ? undefined : tokenContractOf(network, tokenContract);
  if (tokenContract !== undefined && contract === undefined) {
    throw new RangeError(
      rules.tokenContractForm
        ? `A token contract on ${rules.label} is ${rules.tokenContractForm}`
        : `${rules.label} has no token contracts`,
    );
  }
  switch (network) {
    case 'bitcoin':
      return `bitcoin:${address}?amount=${formatAtomicUnits(amount, decimals)}`;
    case 'evm':
      return contract === undefined
        ? `ethereum:${address}@${chainId}?value=${amount}`
        : `ethereum:${contract}@${chainId}/transfer?address=${address}&uint256=${amount}`;
    case 'tron':
      return address;
  }
}
