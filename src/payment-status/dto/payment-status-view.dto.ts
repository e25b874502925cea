import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { PaymentStatus } from '../payment-status.types.js';

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

/**
 * What a SUCCESSFUL report must carry (SUCCESSFUL_REQUIRED_FIELDS) and the session's own key are
 * always in the answer, so they are required here; every other field is optional. The personal
 * fields stay optional: they can be erased from a session (docs/operators.md, "Personal data").
 */
export class PaymentResponseDto {
  @ApiProperty({ type: MoneyDto }) sourceMoney: MoneyDto;
  @ApiProperty({ type: MoneyDto }) destinationMoney: MoneyDto;
  @ApiProperty({ type: MoneyDto }) totalFees: MoneyDto;
  @ApiProperty({ type: MoneyDto }) money: MoneyDto;
  @ApiPropertyOptional({ type: MoneyDto }) requestedMoney?: MoneyDto;
  @ApiProperty({ example: '5f1c2a7e9b' }) traceId: string;
  @ApiPropertyOptional({ example: 'Payout to wallet' }) description?: string;
  @ApiPropertyOptional({ example: 'order-1042' }) clientReference?: string;
  @ApiProperty({
    description: "Always the session's own key.",
    example: 'vk_demo_successful_4f9c2a7e',
  })
  validationKey: string;
  @ApiPropertyOptional({ example: '00' }) responseCode?: string;
  @ApiProperty({ format: 'uuid', example: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f' })
  transactionReference: string;
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

/** The sandbox's demo sessions (seeds/demo.json), one per status: what "Try it out" looks up. */
export const DEMO_VALIDATION_KEYS = {
  SUCCESSFUL: 'vk_demo_successful_4f9c2a7e',
  PENDING: 'vk_demo_pending_8b1d3c5f',
  NOT_COMPLETED: 'vk_demo_not_completed_2e7a9d14',
  FAILED: 'vk_demo_failed_6c0f8e3b',
} as const satisfies Record<PaymentStatus, string>;

/** The sandbox's FAILED demo session without a detailedStatus. */
export const DEMO_FAILED_PLAIN_KEY = 'vk_demo_failed_plain_91a4b7c2';

/**
 * Every demo session of the sandbox (seeds/demo.json), as the examples of a validationKey
 * parameter: one per status, and FAILED once more without a detailedStatus. The README lists
 * the same ones.
 */
export const DEMO_SESSION_EXAMPLES = {
  ...Object.fromEntries(
    Object.entries(DEMO_VALIDATION_KEYS).map(([status, key]) => [
      status,
      { summary: `Demo session, ${status}`, value: key },
    ]),
  ),
  FAILED_PLAIN: {
    summary: 'Demo session, FAILED without detailedStatus',
    value: DEMO_FAILED_PLAIN_KEY,
  },
};

const money = (amount: number, currency: string, presentationAmount: string) => ({
  amount,
  currency,
  presentationAmount,
});

/** One answer per status, as the sandbox gives them for its demo sessions. */
export const PAYMENT_STATUS_EXAMPLES = {
  SUCCESSFUL: {
    summary: 'SUCCESSFUL',
    value: {
      payload: [
        {
          status: 'SUCCESSFUL',
          paymentResponse: {
            sourceMoney: money(150, 'EUR', 'EUR150.00'),
            destinationMoney: money(161.37, 'USDT', 'USDT161.37'),
            totalFees: money(1.5, 'EUR', 'EUR1.50'),
            money: money(148.5, 'EUR', 'EUR148.50'),
            requestedMoney: money(150, 'EUR', 'EUR150.00'),
            traceId: 'TRC-20261121-000417',
            description: 'Payout to USDT wallet',
            clientReference: 'order-1042',
            validationKey: DEMO_VALIDATION_KEYS.SUCCESSFUL,
            responseCode: '00',
            transactionReference: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
            paymentType: 'PAYOUT',
            paymentMethod: 'CRYPTO',
            customerAccountNumber: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
            accountNumber: 'IE29XXXXXXXXXXXXXX5678',
            customerDob: '1990-04-23',
            customerFirstName: 'Aoife',
            customerLastName: 'Murphy',
            senderEmailAddress: 'aoife.murphy@example.com',
            customerCountryCode: 'IE',
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
} satisfies Record<PaymentStatus, { summary: string; value: PaymentStatusEnvelopeDto }>;
