import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  AssetAmount,
  PaymentInstructions,
  PaymentProgress,
} from '../checkout-payments.service.js';
import { DEPOSIT_NETWORKS, type DepositNetwork } from '../networks.js';

/** An amount of the quoted asset. */
export class AssetAmountDto implements AssetAmount {
  @ApiProperty({ description: 'Whole units, no trailing zeros.', example: '10.712346' })
  amount: string;
  @ApiProperty({
    description: 'Atomic units (satoshi, wei, sun, a token’s smallest unit).',
    example: '10712346',
  })
  amountAtomic: string;
}

export class PaymentProgressDto implements PaymentProgress {
  @ApiProperty({
    enum: ['waiting', 'seen', 'underpaid', 'paid'],
    description:
      '`waiting` for a deposit; `seen`: deposits of the quoted asset are confirming; `underpaid`: the confirmed deposits fall short and none is confirming; `paid`.',
  })
  state: PaymentProgress['state'];
  @ApiPropertyOptional({
    type: 'integer',
    description:
      'While `seen`: the confirmations of the least confirmed deposit (of confirmationsRequired).',
    example: 4,
  })
  confirmations?: number;
  @ApiProperty({ type: AssetAmountDto, description: 'Confirmed deposits counted so far.' })
  received: AssetAmountDto;
  @ApiProperty({ type: AssetAmountDto, description: 'What is left to pay (0 once paid).' })
  remaining: AssetAmountDto;
}

/** What the checkout page shows once a pair paid on chain is chosen. */
export class PaymentInstructionsDto implements PaymentInstructions {
  @ApiProperty({ example: 'USDT/TRC20' }) pair: string;
  @ApiProperty({ example: 'USDT' }) assetCode: string;
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'tron' }) network: DepositNetwork;
  @ApiProperty({ example: 'TRON' }) networkLabel: string;
  @ApiPropertyOptional({ type: 'integer', description: 'EVM only.', example: 1 }) chainId?: number;
  @ApiPropertyOptional({
    description: 'A token’s contract; absent for the network’s own coin.',
    example: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  })
  tokenContract?: string;
  @ApiProperty({ type: 'integer', example: 6 }) decimals: number;
  @ApiProperty({ description: 'Exactly this much, in whole units.', example: '10.869566' })
  amount: string;
  @ApiProperty({ example: '10869566' }) amountAtomic: string;
  @ApiProperty({ example: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH' }) address: string;
  @ApiProperty({
    description:
      'BIP21 (bitcoin), EIP-681 (EVM coin or token), the address (TRON): what the QR code holds.',
    example: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
  })
  paymentUri: string;
  @ApiProperty({ description: 'One unit of the asset in `fiat`, as quoted.', example: '0.92' })
  price: string;
  @ApiProperty({ example: 'EUR' }) fiat: string;
  @ApiProperty({
    format: 'date-time',
    description: 'When the quote ends (the page counts down to it).',
  })
  quoteExpiresAt: string;
  @ApiProperty({
    description: 'The quote ended and no fresh rate renewed it: wait, or choose another pair.',
    example: false,
  })
  quoteExpired: boolean;
  @ApiProperty({ description: 'A deposit was seen: the quote stands for good.', example: false })
  quoteLocked: boolean;
  @ApiProperty({ type: 'integer', example: 20 }) confirmationsRequired: number;
  @ApiProperty({ type: PaymentProgressDto }) progress: PaymentProgressDto;
}
