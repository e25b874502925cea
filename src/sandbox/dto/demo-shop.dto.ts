import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches } from 'class-validator';
import { Omittable } from '../../common/validators.js';

/** The longest text the demo shop passes on; init-iframe judges every value by its own rules. */
export const DEMO_TEXT_MAX = 100;
const TEXT_RULE = `must be a text of 1 to ${DEMO_TEXT_MAX} characters`;

/** Where the gateway calls the demo shop back: its two receiver paths. */
export const DEMO_CALLBACK_KINDS = ['return', 'error'] as const;
export type DemoCallbackKind = (typeof DEMO_CALLBACK_KINDS)[number];

/**
 * What the shop's customer fills in. The shop passes it on to init-iframe as it is: the
 * gateway's answer (an error included) is what the demo shows.
 */
export class DemoPaymentRequestDto {
  @ApiProperty({ example: '10.00', maxLength: DEMO_TEXT_MAX })
  @IsString({ message: TEXT_RULE })
  @Length(1, DEMO_TEXT_MAX, { message: TEXT_RULE })
  amount: string;

  @ApiProperty({ example: 'EUR', maxLength: DEMO_TEXT_MAX })
  @IsString({ message: TEXT_RULE })
  @Length(1, DEMO_TEXT_MAX, { message: TEXT_RULE })
  currency: string;

  @ApiProperty({ example: 'Order 1001: a pot of tea', maxLength: DEMO_TEXT_MAX })
  @IsString({ message: TEXT_RULE })
  @Length(1, DEMO_TEXT_MAX, { message: TEXT_RULE })
  description: string;

  @ApiProperty({
    example: 'IE',
    maxLength: DEMO_TEXT_MAX,
    description: "The customer's country: the checkout page offers the catalog's pairs for it.",
  })
  @IsString({ message: TEXT_RULE })
  @Length(1, DEMO_TEXT_MAX, { message: TEXT_RULE })
  countryCode: string;

  @ApiPropertyOptional({ example: 'EN', maxLength: DEMO_TEXT_MAX })
  @Omittable()
  @IsString({ message: TEXT_RULE })
  @Length(1, DEMO_TEXT_MAX, { message: TEXT_RULE })
  languagePreference?: string;
}

/** A demo payment's id in the path: the validationKey the shop made up for it. */
export class DemoPaymentParams {
  @ApiProperty({ example: 'vk_demo_7Hq2LxV0aZ3m' })
  @Matches(/^vk_demo_[A-Za-z0-9_-]{1,64}$/, { message: 'must be a payment of the demo shop' })
  validationKey: string;
}

export class DemoCallbackParams {
  @ApiProperty({ enum: DEMO_CALLBACK_KINDS })
  @IsIn(DEMO_CALLBACK_KINDS, { message: `must be one of ${DEMO_CALLBACK_KINDS.join(', ')}` })
  kind: DemoCallbackKind;
}

/** One HTTP exchange of the shop's server with the gateway, as the demo shows it. */
export class DemoExchangeDto {
  @ApiProperty({ example: 'POST' }) method: string;
  @ApiProperty({ example: '/api/gateway/init-iframe', description: 'Below CONTEXT_PATH.' })
  path: string;
  @ApiProperty({
    description: "The request's headers; the API key is never shown.",
    example: { key: '(the demo API key, kept on the server)', 'x-api-version': '1' },
    additionalProperties: { type: 'string' },
  })
  headers: Record<string, string>;
  @ApiPropertyOptional({ description: 'The request body, when it has one.' })
  requestBody?: object;
  @ApiProperty({ example: 200 }) status: number;
  @ApiProperty({ description: "The gateway's answer, as JSON." })
  responseBody: unknown;
}

export class DemoPaymentStartedDto {
  @ApiProperty({ example: 'vk_demo_7Hq2LxV0aZ3m' }) validationKey: string;
  @ApiPropertyOptional({
    description: "init-iframe's token, for showPaymentIframe; absent when init-iframe refused.",
    example: 'ct_3q2-7wJd0mZkq8yF5c1n2rVb4oXh6LtA9sWeUiOpPzQ',
  })
  initializationToken?: string;
  @ApiProperty({ type: DemoExchangeDto }) initIframe: DemoExchangeDto;
}

export class DemoPaymentStartedEnvelopeDto {
  @ApiProperty({ type: [DemoPaymentStartedDto], minItems: 1, maxItems: 1 })
  payload: [DemoPaymentStartedDto];
}

/** A callback the demo shop received, its signature verified. */
export class DemoReceivedCallbackDto {
  @ApiProperty({ example: 'msg_2Vf9a0c1d2e3f4a5b6c7d8e9' }) webhookId: string;
  @ApiProperty({ format: 'date-time', description: 'The `webhook-timestamp` it was signed at.' })
  signedAt: string;
  @ApiProperty({ enum: DEMO_CALLBACK_KINDS, description: 'Which URL it came to.' })
  kind: string;
  @ApiProperty({ description: 'How many times it came (delivery is at least once).' })
  deliveries: number;
  @ApiProperty({
    enum: ['verified'],
    description: "Verified by the Standard Webhooks library with the merchant's secret.",
  })
  signature: string;
  @ApiProperty({ description: 'The body, as signed.' }) body: object;
}

export class DemoPaymentDto {
  @ApiProperty({ example: 'vk_demo_7Hq2LxV0aZ3m' }) validationKey: string;
  @ApiProperty({ type: [DemoReceivedCallbackDto] }) callbacks: DemoReceivedCallbackDto[];
  @ApiProperty({ type: DemoExchangeDto, description: "The status lookup, by the shop's server." })
  statusLookup: DemoExchangeDto;
}

export class DemoPaymentEnvelopeDto {
  @ApiProperty({ type: [DemoPaymentDto], minItems: 1, maxItems: 1 })
  payload: [DemoPaymentDto];
}

/**
 * A callback's body, as the gateway signs it (docs/callbacks.md): the status element made flat;
 * a SUCCESSFUL one carries the fields of its paymentResponse too.
 */
export class DemoCallbackBodyDto {
  @ApiProperty({ enum: ['SUCCESSFUL', 'FAILED', 'NOT_COMPLETED'] }) status: string;
  @ApiProperty({ example: 'vk_demo_7Hq2LxV0aZ3m' }) validationKey: string;
  @ApiPropertyOptional({ example: 'Insufficient funds' }) errorMessage?: string;
  @ApiPropertyOptional({ example: 'INSUFFICIENT_FUNDS' }) detailedStatus?: string;
}
