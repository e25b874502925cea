import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Length, Matches, ValidateBy } from 'class-validator';
import { CALLBACK_SECRET_RULE, isCallbackSecret } from '../callback-secrets.js';
import { Omittable, Trim } from '../../common/validators.js';
import { MERCHANT_ID_PATTERN, MERCHANT_ID_RULE } from '../merchant-id.js';
import { MAX_API_KEY_LENGTH, MIN_API_KEY_LENGTH } from '../../access/api-key.js';
import { CHECKOUT_ORIGIN_RULE, MAX_CHECKOUT_ORIGINS, isOrigin } from '../checkout-origins.js';

/** Origins that may frame the merchant's checkout page besides those of its callback URLs. */
function CheckoutOrigins(): PropertyDecorator {
  return (target, key) => {
    IsArray({ message: CHECKOUT_ORIGIN_RULE })(target, key);
    ArrayMaxSize(MAX_CHECKOUT_ORIGINS, { message: CHECKOUT_ORIGIN_RULE })(target, key);
    ValidateBy({
      name: 'isOriginList',
      validator: {
        validate: (value: unknown) => Array.isArray(value) && value.every(isOrigin),
        defaultMessage: () => CHECKOUT_ORIGIN_RULE,
      },
    })(target, key);
  };
}

const CHECKOUT_ORIGINS_DOC: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string' },
  maxItems: MAX_CHECKOUT_ORIGINS,
  example: ['https://shop.example'],
  description:
    "Origins that may show the merchant's checkout page in a frame, besides the origins of each session's returnUrl and errorUrl (Content-Security-Policy frame-ancestors). `https` only in production.",
};

const NAME_RULE = 'must be a text of 1 to 200 characters';

export class CreateMerchantDto {
  @ApiProperty({ example: 'acme', pattern: MERCHANT_ID_PATTERN.source })
  @IsString({ message: MERCHANT_ID_RULE })
  @Matches(MERCHANT_ID_PATTERN, { message: MERCHANT_ID_RULE })
  id: string;

  @ApiProperty({ example: 'Acme Payments Ltd', minLength: 1, maxLength: 200 })
  @IsString({ message: NAME_RULE })
  @Length(1, 200, { message: NAME_RULE })
  @Trim()
  name: string;

  @ApiPropertyOptional(CHECKOUT_ORIGINS_DOC)
  @Omittable()
  @CheckoutOrigins()
  checkoutOrigins?: string[];
}

/** PATCH of a merchant: only the fields given change. */
export class UpdateMerchantDto {
  @ApiPropertyOptional({ example: 'Acme Payments Ltd', minLength: 1, maxLength: 200 })
  @Omittable()
  @IsString({ message: NAME_RULE })
  @Length(1, 200, { message: NAME_RULE })
  @Trim()
  name?: string;

  @ApiPropertyOptional(CHECKOUT_ORIGINS_DOC)
  @Omittable()
  @CheckoutOrigins()
  checkoutOrigins?: string[];
}

/** A merchant of a seed file, with the plaintext keys it should have. */
export class SeedMerchantDto extends CreateMerchantDto {
  @ApiProperty({ type: [String], required: false })
  @Omittable()
  @IsArray({ message: 'must be a list of keys' })
  @ArrayMaxSize(100, { message: 'must hold at most 100 keys' })
  @IsString({
    each: true,
    message: `must hold keys of ${MIN_API_KEY_LENGTH} to ${MAX_API_KEY_LENGTH} characters`,
  })
  @Length(MIN_API_KEY_LENGTH, MAX_API_KEY_LENGTH, {
    each: true,
    message: `must hold keys of ${MIN_API_KEY_LENGTH} to ${MAX_API_KEY_LENGTH} characters`,
  })
  apiKeys?: string[];

  @ApiPropertyOptional({
    description: 'The secret signing its callbacks; a new one is generated when absent.',
    example: 'whsec_ZGVtby1jYWxsYmFjay1zZWNyZXQtc2FuZGJveC0zMmI=',
  })
  @Omittable()
  @ValidateBy({
    name: 'isCallbackSecret',
    validator: { validate: isCallbackSecret, defaultMessage: () => CALLBACK_SECRET_RULE },
  })
  callbackSecret?: string;
}

export class MerchantDto {
  @ApiProperty({ example: 'acme' }) id: string;
  @ApiProperty({ example: 'Acme Payments Ltd' }) name: string;
  @ApiProperty({ type: [String], example: ['https://shop.example'] }) checkoutOrigins: string[];
}

/** A merchant as created: its callback secret is shown in this answer only. */
export class CreatedMerchantDto extends MerchantDto {
  @ApiProperty({
    description:
      'Signs every callback to this merchant (Standard Webhooks). Shown only in this answer: it is stored encrypted.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  callbackSecret: string;
}

/** A new callback secret, shown once. */
export class CallbackSecretDto {
  @ApiProperty({
    description:
      'The new secret. For 24 hours callbacks carry a signature with it and one with the previous secret.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  callbackSecret: string;
}

export class CreatedApiKeyDto {
  @ApiProperty({ format: 'uuid', example: '0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d' })
  keyId: string;

  @ApiProperty({
    description: 'The key itself. Shown only in this response: it is stored as a SHA-256 hash.',
    example: 'gw_Q2hhbmdlTWVTb29uUGxlYXNlVGhpc0lzQUZha2VLZXk',
  })
  apiKey: string;
}

/** A merchant in the operator's list. */
export class ListedMerchantDto {
  @ApiProperty({ example: 'acme' }) id: string;
  @ApiProperty({ example: 'Acme Payments Ltd' }) name: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' }) createdAt: string;
}

/** An API key as the operator sees it: never the key itself, nor its hash. */
export class ApiKeyViewDto {
  @ApiProperty({ format: 'uuid', example: '0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d' })
  keyId: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  createdAt: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When the key was revoked; absent while it works.',
    example: '2026-11-22T14:05:12.345Z',
  })
  revokedAt?: string;

  @ApiPropertyOptional({
    description:
      'The last 4 characters of the key, to tell keys apart. Absent for keys created before the service kept them.',
    example: 'GlA4',
    minLength: 4,
    maxLength: 4,
  })
  last4?: string;
}

/** Request bodies "Try it out" offers: accepted once on the sandbox (the id is then taken). */
export const CREATE_MERCHANT_EXAMPLES = {
  newMerchant: {
    summary: 'A new merchant',
    value: { id: 'acme', name: 'Acme Payments Ltd' } satisfies CreateMerchantDto,
  },
  withCheckoutOrigins: {
    summary: 'A new merchant whose shop frames the checkout page',
    value: {
      id: 'acme-shop',
      name: 'Acme Shop',
      checkoutOrigins: ['https://shop.acme.example'],
    } satisfies CreateMerchantDto,
  },
};

export const UPDATE_MERCHANT_EXAMPLES = {
  checkoutOrigins: {
    summary: 'Let a shop frame the checkout page',
    value: { checkoutOrigins: ['https://shop.example'] } satisfies UpdateMerchantDto,
  },
  rename: { summary: 'Rename', value: { name: 'Demo merchant' } satisfies UpdateMerchantDto },
};
