import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Max, Min, ValidateIf } from 'class-validator';
import { Omittable } from '../../common/validators.js';
import { FieldRule } from './field-rule.js';
import { MAX_ASSET_DECIMALS } from '../crypto-amount.js';
import { DEPOSIT_NETWORKS, type DepositNetwork } from '../networks.js';
import {
  chainIdRefusal,
  decimalsRefusal,
  MAX_CHAIN_ID,
  MAX_CONFIRMATIONS,
  tokenContractRefusal,
  type Settlement,
} from '../settlement.js';

const NETWORK_RULE = `must be one of ${DEPOSIT_NETWORKS.join(', ')}`;
const CHAIN_ID_RULE = `must be the EVM chain id, an integer from 1 to ${MAX_CHAIN_ID}`;
const DECIMALS_RULE = `must be an integer from 0 to ${MAX_ASSET_DECIMALS}`;
const CONFIRMATIONS_RULE = `must be an integer from 1 to ${MAX_CONFIRMATIONS}`;

/**
 * How a pair is paid on chain (docs/operators.md, "Settlement of a pair"): on a POST or PATCH of
 * /admin/crypto-pairs and in seed files; never in the merchants' catalog.
 */
export class SettlementDto implements Settlement {
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'tron' })
  @IsIn(DEPOSIT_NETWORKS, { message: NETWORK_RULE })
  network: DepositNetwork;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 1,
    description:
      'Required on `evm` (1 Ethereum, 56 BNB Chain, 137 Polygon, 8453 Base, …); only there.',
  })
  @ValidateIf(
    (settlement: SettlementDto) => settlement.network === 'evm' || settlement.chainId !== undefined,
  )
  @FieldRule<Settlement>('chainIdOfNetwork', (settlement) =>
    chainIdRefusal(settlement.network, settlement.chainId),
  )
  @Max(MAX_CHAIN_ID, { message: CHAIN_ID_RULE })
  @Min(1, { message: CHAIN_ID_RULE })
  @IsInt({ message: CHAIN_ID_RULE })
  chainId?: number;

  @ApiPropertyOptional({
    example: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    description:
      "The token's contract in the network's address form (EVM: 0x and 40 hex digits, stored " +
      'EIP-55 checksummed; TRON: T…). Absent for the network’s own coin (BTC, ETH, TRX, …).',
  })
  @Omittable()
  @FieldRule<Settlement>('tokenContractOfNetwork', (settlement, value) =>
    tokenContractRefusal(settlement.network, value),
  )
  @IsString({ message: 'must be a text' })
  tokenContract?: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_ASSET_DECIMALS,
    example: 6,
    description:
      "The asset's on-chain decimals (BTC 8, ETH 18, TRX 6, USDT on Ethereum and TRON 6).",
  })
  @FieldRule<Settlement>('nativeDecimals', (settlement, value) =>
    decimalsRefusal(settlement.network, settlement.tokenContract, value),
  )
  @Max(MAX_ASSET_DECIMALS, { message: DECIMALS_RULE })
  @Min(0, { message: DECIMALS_RULE })
  @IsInt({ message: DECIMALS_RULE })
  decimals: number;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_CONFIRMATIONS,
    example: 20,
    description: 'Confirmations a deposit needs before it counts.',
  })
  @Max(MAX_CONFIRMATIONS, { message: CONFIRMATIONS_RULE })
  @Min(1, { message: CONFIRMATIONS_RULE })
  @IsInt({ message: CONFIRMATIONS_RULE })
  confirmations: number;
}
