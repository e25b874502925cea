import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Matches, Max, Min } from 'class-validator';
import { DigitsToInteger, NotRepeated, Omittable } from '../../common/validators.js';
import {
  VALIDATION_KEY_PATTERN,
  VALIDATION_KEY_RULE,
} from '../../payment-status/payment-status.types.js';
import { DEPOSIT_FLAGS, type DepositFlag } from '../deposit-rules.js';
import type { ListedDeposit, WatchedAddress } from '../deposit-lists.js';
import { DEPOSIT_NETWORKS, type DepositNetwork } from '../networks.js';
import { chainIdRefusal, MAX_CHAIN_ID } from '../settlement.js';
import { DepositSessionDto } from './deposit-report.dto.js';
import { FieldRule } from './field-rule.js';

const NETWORK_RULE = `must be one of ${DEPOSIT_NETWORKS.join(', ')}`;
const CHAIN_ID_RULE = `must be an integer from 1 to ${MAX_CHAIN_ID}`;
const CURSOR_RULE = 'must be the nextCursor of an earlier page';
const MAX_WATCHED_PAGE = 1000;
const MAX_DEPOSIT_PAGE = 100;
const sizeRule = (max: number) => `must be an integer from 1 to ${max}`;

/** Query of GET /admin/deposit-addresses. */
export class WatchedAddressQueryDto {
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'evm' })
  @IsIn(DEPOSIT_NETWORKS, { message: NETWORK_RULE })
  @NotRepeated()
  network: DepositNetwork;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 1,
    description: 'EVM only: only the addresses whose quoted pair is on this chain.',
  })
  @Omittable()
  @FieldRule<WatchedAddressQueryDto>('chainIdOfNetwork', (query) =>
    chainIdRefusal(query.network, query.chainId),
  )
  @Max(MAX_CHAIN_ID, { message: CHAIN_ID_RULE })
  @Min(1, { message: CHAIN_ID_RULE })
  @IsInt({ message: CHAIN_ID_RULE })
  @NotRepeated()
  @DigitsToInteger()
  chainId?: number;

  @ApiPropertyOptional({
    enum: ['watching', 'all'],
    default: 'watching',
    description:
      '`watching`: addresses whose session is open, or ended less than LATE_DEPOSIT_WATCH_SECONDS ago; `all`: every one.',
  })
  @Omittable()
  @IsIn(['watching', 'all'], { message: 'must be watching or all' })
  @NotRepeated()
  state?: 'watching' | 'all';

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_WATCHED_PAGE, default: 100 })
  @Omittable()
  @Max(MAX_WATCHED_PAGE, { message: sizeRule(MAX_WATCHED_PAGE) })
  @Min(1, { message: sizeRule(MAX_WATCHED_PAGE) })
  @IsInt({ message: sizeRule(MAX_WATCHED_PAGE) })
  @NotRepeated()
  @DigitsToInteger()
  size?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page.' })
  @Omittable()
  @Matches(/^[A-Za-z0-9_-]{1,400}$/, { message: CURSOR_RULE })
  @NotRepeated()
  cursor?: string;
}

/** An address a watcher watches. */
export class WatchedAddressDto implements WatchedAddress {
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'evm' }) network: DepositNetwork;
  @ApiPropertyOptional({ type: 'integer', example: 1, description: 'EVM only.' }) chainId?: number;
  @ApiProperty({
    example: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    description: 'EIP-55 (evm), base58 T… (tron), bech32 or base58 (bitcoin).',
  })
  address: string;
  @ApiPropertyOptional({
    example: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    description: "The quoted asset's contract; absent for the network's own coin.",
  })
  tokenContract?: string;
  @ApiProperty({ type: 'integer', example: 6 }) decimals: number;
  @ApiProperty({
    type: 'integer',
    example: 12,
    description: 'Confirmations a deposit needs before it counts.',
  })
  confirmations: number;
  @ApiProperty({
    format: 'date-time',
    description:
      'When the address was first given: a watcher rescans from the first block at or after it.',
  })
  assignedAt: string;
  @ApiProperty({
    description: "The address's session has ended (a deposit now is late).",
    example: false,
  })
  sessionFinal: boolean;
}

export class WatchedAddressListDto {
  @ApiProperty({ type: [WatchedAddressDto] }) payload: WatchedAddressDto[];
  @ApiPropertyOptional({
    description: 'Pass as `cursor` for the next page; absent on the last page.',
  })
  nextCursor?: string;
}

/** Query of GET /admin/deposits. */
export class DepositListQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      '`true`: only the flagged deposits (for an operator to act on); `false`: only the others.',
  })
  @Omittable()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  @NotRepeated()
  flagged?: 'true' | 'false';

  @ApiPropertyOptional({
    description: "Only this session's deposits.",
    pattern: VALIDATION_KEY_PATTERN.source,
  })
  @Omittable()
  @Matches(VALIDATION_KEY_PATTERN, { message: VALIDATION_KEY_RULE })
  @NotRepeated()
  validationKey?: string;

  @ApiPropertyOptional({ enum: DEPOSIT_NETWORKS })
  @Omittable()
  @IsIn(DEPOSIT_NETWORKS, { message: NETWORK_RULE })
  @NotRepeated()
  network?: DepositNetwork;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_DEPOSIT_PAGE, default: 20 })
  @Omittable()
  @Max(MAX_DEPOSIT_PAGE, { message: sizeRule(MAX_DEPOSIT_PAGE) })
  @Min(1, { message: sizeRule(MAX_DEPOSIT_PAGE) })
  @IsInt({ message: sizeRule(MAX_DEPOSIT_PAGE) })
  @NotRepeated()
  @DigitsToInteger()
  size?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous (newer) page.' })
  @Omittable()
  @Matches(/^[A-Za-z0-9_-]{1,400}$/, { message: CURSOR_RULE })
  @NotRepeated()
  cursor?: string;
}

/** A deposit as an operator sees it. */
export class ListedDepositDto implements ListedDeposit {
  @ApiProperty({ type: 'integer', example: 42 }) id: number;
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'tron' }) network: DepositNetwork;
  @ApiPropertyOptional({ type: 'integer', description: 'EVM only.' }) chainId?: number;
  @ApiProperty({ example: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH' }) address: string;
  @ApiProperty({ example: '3f0c9d3a8e4b1f2a6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3' })
  txid: string;
  @ApiProperty({ type: 'integer', example: 0 }) index: number;
  @ApiProperty({ example: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }) asset: string;
  @ApiProperty({ example: '5000000', description: 'Atomic units.' }) amount: string;
  @ApiProperty({ type: 'integer', example: 20 }) confirmations: number;
  @ApiProperty({ example: true }) counted: boolean;
  @ApiPropertyOptional({
    enum: DEPOSIT_FLAGS,
    description:
      'OTHER_ASSET, OTHER_CHAIN: not what was quoted; LATE: after its session ended; OVERPAID: the excess of a paid session, or an extra payment; UNDERPAID: short of the quote at expiry, to refund.',
  })
  flag?: DepositFlag;
  @ApiPropertyOptional({
    example: '5000000',
    description: 'What the flag is about, in atomic units: the excess, or the amount to refund.',
  })
  flaggedAmount?: string;
  @ApiProperty({ example: 'vk_order_9001_3f1c' }) validationKey: string;
  @ApiProperty({ format: 'date-time' }) firstSeenAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiProperty({ type: DepositSessionDto }) session: DepositSessionDto;
}

export class DepositListDto {
  @ApiProperty({ type: [ListedDepositDto] }) payload: ListedDepositDto[];
  @ApiPropertyOptional({
    description: 'Pass as `cursor` for the next (older) page; absent on the last page.',
  })
  nextCursor?: string;
}
