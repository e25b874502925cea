import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

export class MoneyDto {
  @ApiProperty({ example: 150, minimum: 0, description: 'At most two decimals.' })
  amount: number;

  @ApiProperty({ example: 'EUR' })
  currency: string;

  @ApiProperty({
    example: 'EUR150.00',
    description: 'Currency code then the amount with exactly two decimals, no separators.',
  })
  presentationAmount: string;
}

export class PaymentResponseDto {
  @ApiPropertyOptional({ type: MoneyDto }) sourceMoney?: MoneyDto;
  @ApiPropertyOptional({ type: MoneyDto }) destinationMoney?: MoneyDto;
  @ApiPropertyOptional({ type: MoneyDto }) totalFees?: MoneyDto;
  @ApiPropertyOptional({ type: MoneyDto }) money?: MoneyDto;
  @ApiPropertyOptional({ type: MoneyDto }) requestedMoney?: MoneyDto;
  @ApiPropertyOptional({ example: '5f1c2a7e9b' }) traceId?: string;
  @ApiPropertyOptional({ example: 'Payout to wallet' }) description?: string;
  @ApiPropertyOptional({ example: 'order-1042' }) clientReference?: string;
  @ApiProperty({ description: "Always the session's own key.", example: 'vk_9c1d7e2f4a' })
  validationKey: string;
  @ApiPropertyOptional({ example: '00' }) responseCode?: string;
  @ApiPropertyOptional({ format: 'uuid', example: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f' })
  transactionReference?: string;
  @ApiPropertyOptional({ example: 'PAYOUT' }) paymentType?: string;
  @ApiPropertyOptional({ example: 'CRYPTO' }) paymentMethod?: string;
  @ApiPropertyOptional({ example: 'TXYZ1234567890ABCDEF' }) customerAccountNumber?: string;
  @ApiPropertyOptional({ example: 'IE29XXXXXXXXXXXXXX5678', description: 'Masked.' })
  accountNumber?: string;
  @ApiPropertyOptional({ format: 'date', example: '1990-04-23' }) customerDob?: string;
  @ApiPropertyOptional({ example: 'Aoife' }) customerFirstName?: string;
  @ApiPropertyOptional({ example: 'Murphy' }) customerLastName?: string;
  @ApiPropertyOptional({ format: 'email', example: 'aoife.murphy@example.com' })
  senderEmailAddress?: string;
  @ApiPropertyOptional({ example: 'IE' }) customerCountryCode?: string;
}

export class SuccessfulStatusDto {
  @ApiProperty({ enum: ['SUCCESSFUL'] }) status: 'SUCCESSFUL';
  @ApiProperty({ type: PaymentResponseDto }) paymentResponse: PaymentResponseDto;
}

export class PendingStatusDto {
  @ApiProperty({ enum: ['PENDING'] }) status: 'PENDING';
}

export class NotCompletedStatusDto {
  @ApiProperty({ enum: ['NOT_COMPLETED'] }) status: 'NOT_COMPLETED';
  @ApiPropertyOptional({ example: 'ABANDONED_BY_USER' }) detailedStatus?: string;
}

export class FailedStatusDto {
  @ApiProperty({ enum: ['FAILED'] }) status: 'FAILED';
  @ApiProperty({ example: 'Insufficient funds in source wallet' }) errorMessage: string;
  @ApiPropertyOptional({ example: 'INSUFFICIENT_FUNDS' }) detailedStatus?: string;
}

export type PaymentStatusElement =
  SuccessfulStatusDto | PendingStatusDto | NotCompletedStatusDto | FailedStatusDto;

export const STATUS_ELEMENT_MODELS = [
  SuccessfulStatusDto,
  PendingStatusDto,
  NotCompletedStatusDto,
  FailedStatusDto,
];

export class PaymentStatusEnvelopeDto {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: 1,
    items: {
      oneOf: STATUS_ELEMENT_MODELS.map((model) => ({ $ref: getSchemaPath(model) })),
      discriminator: {
        propertyName: 'status',
        mapping: {
          SUCCESSFUL: getSchemaPath(SuccessfulStatusDto),
          PENDING: getSchemaPath(PendingStatusDto),
          NOT_COMPLETED: getSchemaPath(NotCompletedStatusDto),
          FAILED: getSchemaPath(FailedStatusDto),
        },
      },
    },
  })
  payload: [PaymentStatusElement];
}

/** One answer per status, as the documentation shows them. */
export const PAYMENT_STATUS_EXAMPLES = {
  SUCCESSFUL: {
    summary: 'SUCCESSFUL',
    value: {
      payload: [
        {
          status: 'SUCCESSFUL',
          paymentResponse: {
            sourceMoney: { amount: 150, currency: 'EUR', presentationAmount: 'EUR150.00' },
            destinationMoney: { amount: 148.5, currency: 'USDT', presentationAmount: 'USDT148.50' },
            totalFees: { amount: 1.5, currency: 'EUR', presentationAmount: 'EUR1.50' },
            money: { amount: 150, currency: 'EUR', presentationAmount: 'EUR150.00' },
            traceId: '5f1c2a7e9b',
            clientReference: 'order-1042',
            validationKey: 'vk_9c1d7e2f4a',
            transactionReference: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
            accountNumber: 'IE29XXXXXXXXXXXXXX5678',
          },
        },
      ],
    },
  },
  PENDING: { summary: 'PENDING', value: { payload: [{ status: 'PENDING' }] } },
  NOT_COMPLETED: {
    summary: 'NOT_COMPLETED',
    value: { payload: [{ status: 'NOT_COMPLETED', detailedStatus: 'ABANDONED_BY_USER' }] },
  },
  FAILED: {
    summary: 'FAILED',
    value: {
      payload: [
        {
          status: 'FAILED',
          errorMessage: 'Insufficient funds in source wallet',
          detailedStatus: 'INSUFFICIENT_FUNDS',
        },
      ],
    },
  },
} satisfies Record<string, { summary: string; value: PaymentStatusEnvelopeDto }>;
