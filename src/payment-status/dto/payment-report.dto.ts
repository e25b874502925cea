import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDateString,
  IsEmail,
  IsIn,
  IsObject,
  IsString,
  IsUUID,
  Length,
  Matches,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import {
  CALLBACK_URL_RULE,
  MAX_CALLBACK_URL_LENGTH,
  isCallbackUrl,
} from '../../callbacks/callback-outbox.js';
import { COUNTRY_CODE_PATTERN, COUNTRY_CODE_RULE } from '../../common/codes.js';
import type { JsonNumberText } from '../../common/http/json-text.js';
import { isZonedDateTime, ZONED_DATE_TIME_RULE } from '../../common/iso-time.js';
import { AsciiUpperCase, IsMoneyAmount, Omittable, Trim } from '../../common/validators.js';
import { MERCHANT_ID_PATTERN, MERCHANT_ID_RULE } from '../../merchants/merchant-id.js';
import { DEMO_MERCHANT_ID } from '../../merchants/merchant-id.js';
import {
  PAYMENT_STATUSES,
  VALIDATION_KEY_DESCRIPTION,
  VALIDATION_KEY_PATTERN,
  VALIDATION_KEY_RULE,
  type PaymentStatus,
} from '../payment-status.types.js';

const text = (max: number) => `must be a text of 1 to ${max} characters`;

export class MoneyInputDto {
  @ApiProperty({
    description: 'Non-negative, at most two decimals. A JSON number or a decimal string.',
    example: 150,
    oneOf: [
      { type: 'number', minimum: 0 },
      { type: 'string', pattern: '^\\d+(\\.\\d{1,2})?$' },
    ],
  })
  @IsMoneyAmount()
  amount: number | string | JsonNumberText;

  @ApiProperty({ example: 'EUR', pattern: '^[A-Za-z][A-Za-z0-9]{2,15}$' })
  @IsString({ message: 'must be a currency code of 3 to 16 letters or digits' })
  @Matches(/^[A-Z][A-Z0-9]{2,15}$/, {
    message: 'must be a currency code of 3 to 16 letters or digits',
  })
  @AsciiUpperCase()
  currency: string;
}

const money = () => [
  Omittable(),
  IsObject({ message: 'must be an object {amount, currency}' }),
  ValidateNested(),
  Type(() => MoneyInputDto),
];
function Money(): PropertyDecorator {
  return (target, key) => money().forEach((decorate) => decorate(target, key));
}

/** The payment response of a SUCCESSFUL session as the operator reports it. */
export class PaymentResponseInputDto {
  @ApiPropertyOptional({ type: MoneyInputDto })
  @Money()
  sourceMoney?: MoneyInputDto;

  @ApiPropertyOptional({ type: MoneyInputDto })
  @Money()
  destinationMoney?: MoneyInputDto;

  @ApiPropertyOptional({ type: MoneyInputDto })
  @Money()
  totalFees?: MoneyInputDto;

  @ApiPropertyOptional({ type: MoneyInputDto })
  @Money()
  money?: MoneyInputDto;

  @ApiPropertyOptional({ type: MoneyInputDto })
  @Money()
  requestedMoney?: MoneyInputDto;

  @ApiPropertyOptional({ example: '5f1c2a7e9b', maxLength: 64 })
  @Omittable()
  @IsString({ message: text(64) })
  @Length(1, 64, { message: text(64) })
  traceId?: string;

  @ApiPropertyOptional({ example: 'Payout to wallet', maxLength: 500 })
  @Omittable()
  @IsString({ message: text(500) })
  @Length(1, 500, { message: text(500) })
  description?: string;

  @ApiPropertyOptional({ example: 'order-1042', maxLength: 128 })
  @Omittable()
  @IsString({ message: text(128) })
  @Length(1, 128, { message: text(128) })
  clientReference?: string;

  @ApiPropertyOptional({
    description:
      "Refused unless equal to the session's key: the response always carries the session's own key.",
    pattern: VALIDATION_KEY_PATTERN.source,
  })
  @Omittable()
  @IsString({ message: VALIDATION_KEY_RULE })
  @Matches(VALIDATION_KEY_PATTERN, { message: VALIDATION_KEY_RULE })
  validationKey?: string;

  @ApiPropertyOptional({ example: '00', maxLength: 32 })
  @Omittable()
  @IsString({ message: text(32) })
  @Length(1, 32, { message: text(32) })
  responseCode?: string;

  @ApiPropertyOptional({ format: 'uuid', example: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f' })
  @Omittable()
  @IsUUID('all', { message: 'must be a UUID' })
  transactionReference?: string;

  @ApiPropertyOptional({ example: 'PAYOUT', maxLength: 64 })
  @Omittable()
  @IsString({ message: text(64) })
  @Length(1, 64, { message: text(64) })
  paymentType?: string;

  @ApiPropertyOptional({ example: 'CRYPTO', maxLength: 64 })
  @Omittable()
  @IsString({ message: text(64) })
  @Length(1, 64, { message: text(64) })
  paymentMethod?: string;

  @ApiPropertyOptional({ example: 'TXYZ1234567890ABCDEF', maxLength: 64 })
  @Omittable()
  @IsString({ message: text(64) })
  @Length(1, 64, { message: text(64) })
  customerAccountNumber?: string;

  @ApiPropertyOptional({
    description: 'Masked before it is stored: first 4 and last 4 characters kept.',
    example: 'IE29AIBK93115212345678',
    maxLength: 64,
  })
  @Omittable()
  @IsString({ message: text(64) })
  @Length(1, 64, { message: text(64) })
  accountNumber?: string;

  @ApiPropertyOptional({ format: 'date', example: '1990-04-23' })
  @Omittable()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD' })
  @IsDateString({ strict: true }, { message: 'must be a date YYYY-MM-DD' })
  customerDob?: string;

  @ApiPropertyOptional({ example: 'Aoife', maxLength: 100 })
  @Omittable()
  @IsString({ message: text(100) })
  @Length(1, 100, { message: text(100) })
  customerFirstName?: string;

  @ApiPropertyOptional({ example: 'Murphy', maxLength: 100 })
  @Omittable()
  @IsString({ message: text(100) })
  @Length(1, 100, { message: text(100) })
  customerLastName?: string;

  @ApiPropertyOptional({ format: 'email', example: 'aoife.murphy@example.com' })
  @Omittable()
  @IsEmail({}, { message: 'must be an email address' })
  senderEmailAddress?: string;

  @ApiPropertyOptional({ example: 'IE', pattern: '^[A-Za-z]{2}$' })
  @Omittable()
  @Matches(COUNTRY_CODE_PATTERN, { message: COUNTRY_CODE_RULE })
  @AsciiUpperCase()
  customerCountryCode?: string;
}

/** Body of PUT /admin/payment-sessions/{validationKey}; also one session of a seed file. */
export class PaymentReportDto {
  @ApiProperty({ example: DEMO_MERCHANT_ID, pattern: MERCHANT_ID_PATTERN.source })
  @IsString({ message: MERCHANT_ID_RULE })
  @Matches(MERCHANT_ID_PATTERN, { message: MERCHANT_ID_RULE })
  merchantId: string;

  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'SUCCESSFUL' })
  @IsIn(PAYMENT_STATUSES, { message: `must be one of ${PAYMENT_STATUSES.join(', ')}` })
  status: PaymentStatus;

  @ApiPropertyOptional({
    description: 'Only with NOT_COMPLETED or FAILED.',
    example: 'ABANDONED_BY_USER',
    maxLength: 64,
  })
  @Omittable()
  @IsString({ message: text(64) })
  @Length(1, 64, { message: text(64) })
  @Trim()
  detailedStatus?: string;

  @ApiPropertyOptional({
    description: 'Required with FAILED, refused with any other status.',
    example: 'Insufficient funds in source wallet',
    maxLength: 1000,
  })
  @Omittable()
  @IsString({ message: text(1000) })
  @Length(1, 1000, { message: text(1000) })
  @Trim()
  errorMessage?: string;

  @ApiPropertyOptional({
    type: PaymentResponseInputDto,
    description:
      'Required with SUCCESSFUL (with transactionReference, money, sourceMoney, destinationMoney, totalFees, traceId), refused with any other status.',
  })
  @Omittable()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => PaymentResponseInputDto)
  paymentResponse?: PaymentResponseInputDto;

  @ApiPropertyOptional({
    description:
      'Called back (POST, signed) when the session becomes SUCCESSFUL; also for FAILED and NOT_COMPLETED when there is no errorUrl. Kept once given; cannot change once the session is final; never shown by the status lookup.',
    example: 'https://merchant.example/payments/return',
    maxLength: MAX_CALLBACK_URL_LENGTH,
  })
  @Omittable()
  @CallbackUrl()
  returnUrl?: string;

  @ApiPropertyOptional({
    description: 'Called back when the session becomes FAILED or NOT_COMPLETED.',
    example: 'https://merchant.example/payments/error',
    maxLength: MAX_CALLBACK_URL_LENGTH,
  })
  @Omittable()
  @CallbackUrl()
  errorUrl?: string;
}

function CallbackUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isCallbackUrl',
    validator: { validate: isCallbackUrl, defaultMessage: () => CALLBACK_URL_RULE },
  });
}

/** A date-time with its time zone (see isZonedDateTime). */
function IsZonedDateTime(): PropertyDecorator {
  return ValidateBy({
    name: 'isZonedDateTime',
    validator: { validate: isZonedDateTime, defaultMessage: () => ZONED_DATE_TIME_RULE },
  });
}

/**
 * A session of a seed file: the report plus its key and, for sessions moved from another system,
 * when it was created and when it became final (the retention of its personal data counts from
 * that time). The rules that tie them to the status and to now are in seededTimeErrors.
 */
export class SeedPaymentSessionDto extends PaymentReportDto {
  @ApiProperty({ description: VALIDATION_KEY_DESCRIPTION, pattern: VALIDATION_KEY_PATTERN.source })
  @IsString({ message: VALIDATION_KEY_RULE })
  @Matches(VALIDATION_KEY_PATTERN, { message: VALIDATION_KEY_RULE })
  validationKey: string;

  /** When the session was created; applies when the record creates it. */
  @Omittable()
  @IsZonedDateTime()
  createdAt?: string;

  /** When the session became final (SUCCESSFUL or FAILED); applies when the record makes it final. */
  @Omittable()
  @IsZonedDateTime()
  finalAt?: string;
}

/** A validation key the sandbox has no session for: "Try it out" creates it. */
export const NEW_SESSION_KEY_EXAMPLE = 'vk_try_it_out_0001';

/**
 * One report per status, as "Try it out" offers them; each is accepted for a new session of the
 * sandbox's demo merchant.
 */
export const PAYMENT_REPORT_EXAMPLES = {
  PENDING: {
    summary: 'PENDING',
    value: { merchantId: DEMO_MERCHANT_ID, status: 'PENDING' },
  },
  NOT_COMPLETED: {
    summary: 'NOT_COMPLETED',
    value: {
      merchantId: DEMO_MERCHANT_ID,
      status: 'NOT_COMPLETED',
      detailedStatus: 'ABANDONED_BY_USER',
    },
  },
  SUCCESSFUL: {
    summary: 'SUCCESSFUL',
    value: {
      merchantId: DEMO_MERCHANT_ID,
      status: 'SUCCESSFUL',
      paymentResponse: {
        sourceMoney: { amount: 150, currency: 'EUR' },
        destinationMoney: { amount: 161.37, currency: 'USDT' },
        totalFees: { amount: 1.5, currency: 'EUR' },
        money: { amount: 148.5, currency: 'EUR' },
        traceId: 'TRC-20261121-000418',
        transactionReference: '6a1f0c3e-2b4d-4f8a-9e7c-5d3b1a0f2e4c',
        clientReference: 'order-1043',
        accountNumber: 'IE29AIBK93115212345678',
      },
    },
  },
  FAILED: {
    summary: 'FAILED',
    value: {
      merchantId: DEMO_MERCHANT_ID,
      status: 'FAILED',
      errorMessage: 'Insufficient funds in source wallet',
      detailedStatus: 'INSUFFICIENT_FUNDS',
    },
  },
} satisfies Record<PaymentStatus, { summary: string; value: PaymentReportDto }>;
