import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDateString,
  isEmail,
  IsObject,
  IsString,
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
import { isIso4217Code, toMinorUnits } from '../../common/money.js';
import { AbsentWhenNull, AsciiUpperCase, IsMoneyAmount, Trim } from '../../common/validators.js';
import {
  VALIDATION_KEY_DESCRIPTION,
  VALIDATION_KEY_PATTERN,
  VALIDATION_KEY_RULE,
} from '../../payment-status/payment-status.types.js';

/** Text without control characters, trimmed, 1 to `max` characters. */
function Text(max: number): PropertyDecorator {
  const rule = `must be a text of 1 to ${max} characters without control characters`;
  return (target, key) => {
    IsString({ message: rule })(target, key);
    Length(1, max, { message: rule })(target, key);
    Matches(/^[^\p{Cc}\p{Cs}]*$/u, { message: rule })(target, key);
    Trim()(target, key);
  };
}

const AMOUNT_RULE = 'must be an amount greater than 0 with at most two decimals';
const CURRENCY_RULE = 'must be an ISO 4217 currency code such as EUR';

export class CheckoutMoneyDto {
  @ApiProperty({
    description:
      'Greater than 0, at most two decimals: a decimal string or a JSON number. Stored exactly.',
    example: '10.00',
    oneOf: [
      { type: 'string', pattern: '^\\d+(\\.\\d{1,2})?$' },
      { type: 'number', minimum: 0, exclusiveMinimum: true },
    ],
  })
  @IsMoneyAmount()
  @ValidateBy({
    name: 'isPositiveAmount',
    validator: {
      validate: (value: unknown) => (toMinorUnits(value) ?? 0) > 0,
      defaultMessage: () => AMOUNT_RULE,
    },
  })
  amount: string | number;

  @ApiProperty({
    example: 'EUR',
    pattern: '^[A-Za-z]{3}$',
    description: 'An ISO 4217 currency code, case-insensitive (stored upper case).',
  })
  @IsString({ message: CURRENCY_RULE })
  @Matches(/^[A-Z]{3}$/, { message: CURRENCY_RULE })
  @ValidateBy({
    name: 'isIso4217Code',
    validator: { validate: isIso4217Code, defaultMessage: () => CURRENCY_RULE },
  })
  @AsciiUpperCase()
  currency: string;
}

/** The customer: personal data (never logged, never audited, erased with the session's). */
export class CheckoutClientDto {
  @ApiProperty({ example: 'Ann', maxLength: 100 })
  @Text(100)
  firstName: string;

  @ApiProperty({ example: 'Lee', maxLength: 100 })
  @Text(100)
  lastName: string;

  @ApiProperty({ example: '871234567', pattern: '^\\+?[0-9][0-9 ().-]{2,30}$' })
  @IsString({ message: 'must be a phone number of 3 to 32 digits, spaces, ( ) . -' })
  @Matches(/^\+?[0-9][0-9 ().-]{2,30}$/, {
    message: 'must be a phone number of 3 to 32 digits, spaces, ( ) . -',
  })
  @Trim()
  phone: string;

  @ApiProperty({ example: '+353', pattern: '^\\+?[0-9]{1,4}$' })
  @IsString({ message: 'must be a dialing code such as +353' })
  @Matches(/^\+?[0-9]{1,4}$/, { message: 'must be a dialing code such as +353' })
  @Trim()
  dialingCode: string;

  @ApiProperty({ example: 'IE', pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2.' })
  @IsString({ message: COUNTRY_CODE_RULE })
  @Matches(COUNTRY_CODE_PATTERN, { message: COUNTRY_CODE_RULE })
  @AsciiUpperCase()
  nationality: string;

  @ApiProperty({ example: 'ann@example.org', format: 'email', maxLength: 254 })
  @ValidateBy({
    name: 'isEmailAddress',
    validator: {
      // A lone surrogate is no text at all: validator.js's check would throw on it.
      validate: (value: unknown) =>
        typeof value === 'string' &&
        value.length >= 3 &&
        value.length <= 254 &&
        !/\p{Cs}/u.test(value) &&
        isEmail(value),
      defaultMessage: () => 'must be an email address',
    },
  })
  @Trim()
  emailAddress: string;

  @ApiProperty({ example: '1990-01-31', format: 'date' })
  @IsString({ message: 'must be a date YYYY-MM-DD, not in the future' })
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD, not in the future' })
  @IsDateString({ strict: true }, { message: 'must be a date YYYY-MM-DD, not in the future' })
  @ValidateBy({
    name: 'notInTheFuture',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && value <= new Date().toISOString().slice(0, 10),
      defaultMessage: () => 'must be a date YYYY-MM-DD, not in the future',
    },
  })
  dob: string;
}

/** The customer's address: personal data. `countryCode` chooses the pairs the page offers. */
export class CheckoutAddressDto {
  @ApiProperty({ example: '1 Main St', maxLength: 200 })
  @Text(200)
  addressLine1: string;

  @ApiProperty({
    example: 'IE',
    pattern: '^[A-Za-z]{2}$',
    description: 'ISO 3166-1 alpha-2; the page offers the pairs of the catalog for it.',
  })
  @IsString({ message: COUNTRY_CODE_RULE })
  @Matches(COUNTRY_CODE_PATTERN, { message: COUNTRY_CODE_RULE })
  @AsciiUpperCase()
  countryCode: string;

  @ApiProperty({ example: 'Dublin', maxLength: 100 })
  @Text(100)
  city: string;
}

function CallbackUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isCallbackUrl',
    validator: { validate: isCallbackUrl, defaultMessage: () => CALLBACK_URL_RULE },
  });
}

/** A language tag such as `EN`, `de` or `pt-BR`. */
export const LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/;

/** Body of POST /api/gateway/init-iframe: what existing integrations send. */
export class InitIframeDto {
  @ApiProperty({ type: CheckoutMoneyDto })
  @IsObject({ message: 'must be an object {amount, currency}' })
  @ValidateNested()
  @Type(() => CheckoutMoneyDto)
  money: CheckoutMoneyDto;

  @ApiProperty({ type: CheckoutClientDto })
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => CheckoutClientDto)
  client: CheckoutClientDto;

  @ApiProperty({ type: CheckoutAddressDto })
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => CheckoutAddressDto)
  address: CheckoutAddressDto;

  @ApiProperty({
    description: `Generated by the merchant: the key of the payment session. ${VALIDATION_KEY_DESCRIPTION}`,
    example: 'vk_order_9001_3f1c',
    pattern: VALIDATION_KEY_PATTERN.source,
  })
  @IsString({ message: VALIDATION_KEY_RULE })
  @Matches(VALIDATION_KEY_PATTERN, { message: VALIDATION_KEY_RULE })
  validationKey: string;

  @ApiProperty({ example: 'cust-42', maxLength: 128 })
  @Text(128)
  clientReference: string;

  @ApiProperty({ example: 'order-9001', maxLength: 64, description: 'Answered back as given.' })
  @Text(64)
  traceId: string;

  @ApiProperty({ example: 'order-9001', maxLength: 500, description: 'Shown on the page.' })
  @Text(500)
  description: string;

  @ApiProperty({
    example: '5001000001223369',
    maxLength: 64,
    description: "The merchant's account receiving the money (masked when stored in the answer).",
  })
  @Text(64)
  destinationAccountNumber: string;

  @ApiProperty({ example: '001', maxLength: 64 })
  @Text(64)
  brandId: string;

  @ApiProperty({
    example: 'https://shop.example/return',
    maxLength: MAX_CALLBACK_URL_LENGTH,
    description:
      'Called back (POST, signed) when the payment succeeds; also when it fails or is not completed and there is no errorUrl. Its origin may frame the checkout page.',
  })
  @CallbackUrl()
  returnUrl: string;

  @ApiPropertyOptional({
    example: 'https://shop.example/error',
    maxLength: MAX_CALLBACK_URL_LENGTH,
    description:
      'Called back when the payment fails or is not completed. Its origin may frame the page.',
  })
  @AbsentWhenNull()
  @CallbackUrl()
  errorUrl?: string;

  @ApiPropertyOptional({
    example: 'EN',
    pattern: LANGUAGE_PATTERN.source,
    description:
      "The page's language when the service has it (EN, DE); English otherwise. Case-insensitive.",
  })
  @AbsentWhenNull()
  @IsString({ message: 'must be a language tag such as EN or de-AT' })
  @Length(2, 35, { message: 'must be a language tag such as EN or de-AT' })
  @Matches(LANGUAGE_PATTERN, { message: 'must be a language tag such as EN or de-AT' })
  languagePreference?: string;
}

/** The answer's element: what existing integrations read. */
export class InitIframeAnswerDto {
  @ApiProperty({ example: 'order-9001' }) traceId: string;
  @ApiProperty({
    example: 'ct_3q2-7wJd0mZkq8yF5c1n2rVb4oXh6LtA9sWeUiOpPzQ',
    description:
      'Opaque; opens the checkout page (`showPaymentIframe(container, {token})`) until CHECKOUT_TOKEN_TTL_SECONDS after this answer.',
  })
  initializationToken: string;
}

export class InitIframeEnvelopeDto {
  @ApiProperty({ type: [InitIframeAnswerDto], minItems: 1, maxItems: 1 })
  payload: [InitIframeAnswerDto];
}

/** The body existing integrations send, valid for the sandbox's demo merchant. */
export const INIT_IFRAME_EXAMPLE = {
  money: { amount: '10.00', currency: 'EUR' },
  client: {
    firstName: 'Ann',
    lastName: 'Lee',
    phone: '871234567',
    dialingCode: '+353',
    nationality: 'IE',
    emailAddress: 'ann@example.org',
    dob: '1990-01-31',
  },
  address: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
  validationKey: 'vk_try_it_out_checkout_0001',
  clientReference: 'cust-42',
  traceId: 'order-9001',
  description: 'order-9001',
  destinationAccountNumber: '5001000001223369',
  brandId: '001',
  returnUrl: 'https://shop.example/return',
  errorUrl: 'https://shop.example/error',
  languagePreference: 'EN',
} satisfies InitIframeDto;
