import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, Matches, Max, Min } from 'class-validator';
import { DigitsToInteger, NotRepeated, Omittable } from '../../common/validators.js';
import { MERCHANT_ID_PATTERN, MERCHANT_ID_RULE } from '../../merchants/merchant-id.js';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../payment-status/payment-status.types.js';
import { MoneyDto } from '../../payment-status/dto/payment-status-view.dto.js';

const DATE_TIME_RULE = 'must be an ISO 8601 date-time such as 2026-11-21T10:00:00Z';
export const MAX_SESSION_PAGE = 100;
const CURSOR_RULE = 'must be the nextCursor of an earlier page';

/** Query of the operator's list of payment sessions. */
export class SessionListQueryDto {
  @ApiPropertyOptional({ example: 'demo', pattern: MERCHANT_ID_PATTERN.source })
  @Omittable()
  @Matches(MERCHANT_ID_PATTERN, { message: MERCHANT_ID_RULE })
  @NotRepeated()
  merchantId?: string;

  @ApiPropertyOptional({ enum: PAYMENT_STATUSES })
  @Omittable()
  @IsIn(PAYMENT_STATUSES, { message: `must be one of ${PAYMENT_STATUSES.join(', ')}` })
  @NotRepeated()
  status?: PaymentStatus;

  @ApiPropertyOptional({
    description: 'Created at or after this time.',
    format: 'date-time',
    example: '2026-11-01T00:00:00Z',
  })
  @Omittable()
  @IsISO8601({ strict: true }, { message: DATE_TIME_RULE })
  @NotRepeated()
  createdFrom?: string;

  @ApiPropertyOptional({
    description: 'Created before this time.',
    format: 'date-time',
    example: '2026-12-01T00:00:00Z',
  })
  @Omittable()
  @IsISO8601({ strict: true }, { message: DATE_TIME_RULE })
  @NotRepeated()
  createdTo?: string;

  @ApiPropertyOptional({
    description: 'The `nextCursor` of the previous page; the first page without it.',
  })
  @Omittable()
  @Matches(/^[A-Za-z0-9_-]{1,400}$/, { message: CURSOR_RULE })
  @NotRepeated()
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_SESSION_PAGE, default: 20 })
  @Omittable()
  @IsInt({ message: `must be an integer from 1 to ${MAX_SESSION_PAGE}` })
  @Min(1, { message: `must be an integer from 1 to ${MAX_SESSION_PAGE}` })
  @Max(MAX_SESSION_PAGE, { message: `must be an integer from 1 to ${MAX_SESSION_PAGE}` })
  @NotRepeated()
  @DigitsToInteger()
  size?: number;
}

export class ActorDto {
  @ApiProperty({ enum: ['merchant', 'operator', 'customer', 'system', 'seed'] }) kind: string;
  @ApiPropertyOptional({ description: 'The merchant or operator id.' }) id?: string;
  @ApiPropertyOptional({ description: "The operator's name." }) name?: string;
}

/** A session in the operator's list. */
export class SessionSummaryDto {
  @ApiProperty({ example: 'vk_order_9001_3f1c' }) validationKey: string;
  @ApiProperty({ example: 'demo' }) merchantId: string;
  @ApiProperty({ enum: PAYMENT_STATUSES }) status: string;
  @ApiPropertyOptional({ example: 'ABANDONED_BY_USER' }) detailedStatus?: string;
  @ApiPropertyOptional({ format: 'date-time' }) createdAt?: string;
  @ApiPropertyOptional({
    type: ActorDto,
    description: 'Absent for sessions older than this record.',
  })
  createdBy?: ActorDto;
}

export class SessionListDto {
  @ApiPropertyOptional({
    description: 'Pass as `cursor` for the next (older) page; absent on the last page.',
  })
  nextCursor?: string;
  @ApiProperty({ type: [SessionSummaryDto] }) payload: SessionSummaryDto[];
}

/** A checkout's data: the customer and address only for `payments` and above. */
export class CheckoutDetailDto {
  @ApiProperty({ format: 'date-time', description: 'When its last token expires.' })
  expiresAt: string;
  @ApiPropertyOptional({ example: 'USDT/TRC20' }) chosenPair?: string;
  @ApiPropertyOptional({ example: 'EN' }) languagePreference?: string;
  @ApiPropertyOptional({
    example: '5001XXXXXXXX3369',
    description:
      'The account init-iframe named, masked like `accountNumber`, which it becomes in the ' +
      'sandbox: only for the roles `payments` and `admin`, and gone once the personal data is ' +
      'erased.',
  })
  destinationAccountNumber?: string;
  @ApiProperty({ example: '001' }) brandId: string;
  @ApiPropertyOptional({
    description: 'Personal data: for the roles payments and admin; absent once erased.',
    example: {
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '871234567',
      dialingCode: '+353',
      nationality: 'IE',
      emailAddress: 'ann@example.org',
      dob: '1990-01-31',
    },
  })
  client?: Record<string, string>;
  @ApiPropertyOptional({
    description: 'Personal data: for the roles payments and admin; absent once erased.',
    example: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
  })
  address?: Record<string, string>;
}

/** One session as the operator sees it. */
export class SessionDetailDto extends SessionSummaryDto {
  @ApiProperty({ type: 'integer', example: 2 }) version: number;
  @ApiPropertyOptional({ type: MoneyDto, description: 'The amount asked for or paid.' })
  money?: MoneyDto;
  @ApiPropertyOptional({ example: 'order-9001' }) traceId?: string;
  @ApiPropertyOptional({ example: 'cust-42' }) clientReference?: string;
  @ApiPropertyOptional({ example: 'order-9001' }) description?: string;
  @ApiPropertyOptional({ example: 'https://shop.example/return' }) returnUrl?: string;
  @ApiPropertyOptional({ example: 'https://shop.example/error' }) errorUrl?: string;
  @ApiPropertyOptional({ type: CheckoutDetailDto }) checkout?: CheckoutDetailDto;
  @ApiProperty({
    description:
      'What the merchant sees (the status element); the personal fields of its paymentResponse only for the roles payments and admin.',
    type: 'array',
    items: { type: 'object' },
    minItems: 1,
    maxItems: 1,
  })
  payload: object[];
}
