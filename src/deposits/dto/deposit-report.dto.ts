import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Length, Max, Min, ValidateBy } from 'class-validator';
import { Omittable } from '../../common/validators.js';
import { tokenContractOf } from '../chain-address.js';
import { parseAtomicUnits } from '../crypto-amount.js';
import type { DepositFlag } from '../deposit-rules.js';
import { DEPOSIT_FLAGS } from '../deposit-rules.js';
import {
  DEPOSIT_NETWORKS,
  isDepositNetwork,
  NETWORK_RULES,
  type DepositNetwork,
} from '../networks.js';
import { chainIdRefusal, MAX_CHAIN_ID, NATIVE_ASSET } from '../settlement.js';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../payment-status/payment-status.types.js';
import { FieldRule } from './field-rule.js';

const NETWORK_RULE = `must be one of ${DEPOSIT_NETWORKS.join(', ')}`;
const CHAIN_ID_RULE = `must be an integer from 1 to ${MAX_CHAIN_ID}`;
const INDEX_RULE = 'must be an integer from 0 to 2147483647';
const CONFIRMATIONS_RULE = 'must be an integer from 0 to 100000000';
const AMOUNT_RULE =
  'must be the amount in atomic units: a decimal integer above 0 as a string, such as "10712346"';
const ADDRESS_RULE = 'must be an address of 1 to 100 characters';

/** A transaction id: 0x and 64 hex digits on EVM chains, 64 hex digits on bitcoin and TRON. */
const TXID = {
  evm: /^0x[0-9a-fA-F]{64}$/,
  bitcoin: /^[0-9a-fA-F]{64}$/,
  tron: /^[0-9a-fA-F]{64}$/,
};

function txidRefusal(network: unknown, txid: unknown): string | undefined {
  if (!isDepositNetwork(network)) return undefined;
  if (typeof txid === 'string' && TXID[network].test(txid)) return undefined;
  return network === 'evm'
    ? 'must be the transaction hash: 0x and 64 hexadecimal digits'
    : 'must be the transaction id: 64 hexadecimal digits';
}

function assetRefusal(network: unknown, asset: unknown): string | undefined {
  if (!isDepositNetwork(network) || asset === NATIVE_ASSET) return undefined;
  const form = NETWORK_RULES[network].tokenContractForm;
  if (!form) return `must be "${NATIVE_ASSET}": ${network} has no tokens`;
  if (typeof asset === 'string' && tokenContractOf(network, asset) !== undefined) return undefined;
  return `must be "${NATIVE_ASSET}" or the token contract (${form})`;
}

/** Body of POST /admin/deposits: one transfer a watcher saw (docs/watcher-protocol.md). */
export class DepositReportDto {
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'evm' })
  @IsIn(DEPOSIT_NETWORKS, { message: NETWORK_RULE })
  network: DepositNetwork;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 1,
    description:
      "EVM only. Absent: the chain of the address's pair. Another chain than the pair's is stored and flagged OTHER_CHAIN, never counted.",
  })
  @Omittable()
  @FieldRule<DepositReportDto>('chainIdOfNetwork', (report) =>
    chainIdRefusal(report.network, report.chainId),
  )
  @Max(MAX_CHAIN_ID, { message: CHAIN_ID_RULE })
  @Min(1, { message: CHAIN_ID_RULE })
  @IsInt({ message: CHAIN_ID_RULE })
  chainId?: number;

  @ApiProperty({
    description: 'A deposit address the gateway gave (any case on EVM chains).',
    example: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  })
  @Length(1, 100, { message: ADDRESS_RULE })
  @IsString({ message: ADDRESS_RULE })
  address: string;

  @ApiProperty({
    description:
      'The transaction: 0x and 64 hex digits on EVM chains, 64 hex digits elsewhere (any case; stored lower case).',
    example: '0x3f0c9d3a8e4b1f2a6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3',
  })
  @FieldRule<DepositReportDto>('txidOfNetwork', (report, value) =>
    txidRefusal(report.network, value),
  )
  txid: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 3,
    description:
      'The log index of a token transfer, 0 for a plain coin transfer; on bitcoin the output index.',
  })
  @Max(2_147_483_647, { message: INDEX_RULE })
  @Min(0, { message: INDEX_RULE })
  @IsInt({ message: INDEX_RULE })
  index: number;

  @ApiProperty({
    description: 'The token contract, or `native` for the network’s own coin.',
    example: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  })
  @FieldRule<DepositReportDto>('assetOfNetwork', (report, value) =>
    assetRefusal(report.network, value),
  )
  asset: string;

  @ApiProperty({
    description: 'Atomic units, a decimal integer string above 0.',
    example: '10712346',
  })
  @ValidateBy(
    {
      name: 'isAtomicAmount',
      validator: { validate: (value) => parseAtomicUnits(value) !== undefined },
    },
    { message: AMOUNT_RULE },
  )
  amount: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 2,
    description: '0 in the mempool, or once the transfer left the chain (a reorganisation).',
  })
  @Max(100_000_000, { message: CONFIRMATIONS_RULE })
  @Min(0, { message: CONFIRMATIONS_RULE })
  @IsInt({ message: CONFIRMATIONS_RULE })
  confirmations: number;
}

export class DepositSessionDto {
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'PENDING' }) status: PaymentStatus;
}

/** What the gateway made of a reported transfer. */
export class DepositAnswerDto {
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'evm' }) network: DepositNetwork;
  @ApiProperty({ example: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' }) address: string;
  @ApiProperty({ example: '0x3f0c9d3a8e4b1f2a6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3' })
  txid: string;
  @ApiProperty({ type: 'integer', example: 3 }) index: number;
  @ApiProperty({ example: '0xdAC17F958D2ee523a2206206994597C13D831ec7' }) asset: string;
  @ApiProperty({ example: '10712346' }) amount: string;
  @ApiProperty({ type: 'integer', example: 2 }) confirmations: number;
  @ApiProperty({
    description: 'It counts toward its session now: the quoted asset and chain, confirmed enough.',
    example: false,
  })
  counted: boolean;
  @ApiPropertyOptional({
    enum: DEPOSIT_FLAGS,
    description: 'Why an operator is to look at it; absent when nothing is wrong.',
  })
  flag?: DepositFlag;
  @ApiProperty({ type: DepositSessionDto }) session: DepositSessionDto;
}

export class DepositAnswerEnvelopeDto {
  @ApiProperty({ type: [DepositAnswerDto], minItems: 1, maxItems: 1 }) payload: DepositAnswerDto[];
}

export const DEPOSIT_REPORT_EXAMPLES = {
  token: {
    summary: 'A USDT transfer on Ethereum, 2 confirmations',
    value: {
      network: 'evm',
      chainId: 1,
      address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      txid: '0x3f0c9d3a8e4b1f2a6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3',
      index: 3,
      asset: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      amount: '10712346',
      confirmations: 2,
    } satisfies DepositReportDto,
  },
};
