import { PaymentInstructionsDto } from '../../deposits/dto/payment-instructions.dto.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches } from 'class-validator';
import { Omittable } from '../../common/validators.js';
import { CURRENCY_CODE_PATTERN, PROTOCOL_PATTERN } from '../../common/codes.js';
import { FAILURE_REASON_CODES, type FailureReason } from '../checkout-outcomes.js';
import { SANDBOX_DEPOSIT_KINDS, type SandboxDepositKind } from '../../deposits/sandbox-deposits.js';

const NONCE_DOC = {
  description:
    'The single-use nonce of the page this action comes from (its `data-nonce`). Missing, not the current one or already spent: 403 FORBIDDEN.',
  example: 'Jx3mT0f8pY2kQ9wV5bR7cL1dN4hS6aZe',
};

/** A checkout page's token: the path parameter of every page route. */
export class CheckoutTokenParams {
  @ApiProperty({
    description: 'The initializationToken init-iframe answered.',
    example: 'ct_3q2-7wJd0mZkq8yF5c1n2rVb4oXh6LtA9sWeUiOpPzQ',
  })
  @IsString()
  token: string;
}

/** Query of the page: the origin of the merchant's page that frames it (set by the widget). */
export class CheckoutPageQuery {
  @ApiPropertyOptional({
    description:
      'The origin of the page framing this one, as the widget sends it. The page talks to its parent only when this origin may frame it.',
    example: 'https://shop.example',
  })
  @Omittable()
  @IsString()
  @Length(1, 300)
  origin?: string;
}

/** An action of the page: its nonce. */
export class PageActionDto {
  @ApiPropertyOptional(NONCE_DOC)
  @Omittable()
  @IsString({ message: 'must be the page nonce' })
  @Length(1, 100, { message: 'must be the page nonce' })
  nonce?: string;
}

export class ChoosePairDto extends PageActionDto {
  @ApiProperty({ example: 'USDT', pattern: CURRENCY_CODE_PATTERN.source })
  @IsString({ message: 'must be a currency code the page offers' })
  @Matches(CURRENCY_CODE_PATTERN, { message: 'must be a currency code the page offers' })
  currencyCode: string;

  @ApiProperty({ example: 'TRC20', pattern: PROTOCOL_PATTERN.source })
  @IsString({ message: 'must be a protocol the page offers' })
  @Matches(PROTOCOL_PATTERN, { message: 'must be a protocol the page offers' })
  protocol: string;
}

export class SandboxOutcomeDto extends PageActionDto {
  @ApiProperty({ enum: ['paid', 'failed'], example: 'paid' })
  @IsIn(['paid', 'failed'], { message: 'must be paid or failed' })
  outcome: 'paid' | 'failed';

  @ApiPropertyOptional({
    enum: FAILURE_REASON_CODES,
    description: 'Why it failed (with `failed`; INSUFFICIENT_FUNDS when absent).',
  })
  @Omittable()
  @IsIn(FAILURE_REASON_CODES, { message: `must be one of ${FAILURE_REASON_CODES.join(', ')}` })
  reason?: FailureReason;
}

/** Where the checkout stands, as the page's script reads it. */
export class SandboxDepositDto extends PageActionDto {
  @ApiProperty({
    enum: SANDBOX_DEPOSIT_KINDS,
    example: 'full',
    description: '`full`: the quoted amount; `under`: half of it; `over`: a tenth more.',
  })
  @IsIn(SANDBOX_DEPOSIT_KINDS, { message: `must be one of ${SANDBOX_DEPOSIT_KINDS.join(', ')}` })
  amount: SandboxDepositKind;
}

export class CheckoutStateDto {
  @ApiProperty({ enum: ['SUCCESSFUL', 'PENDING', 'NOT_COMPLETED', 'FAILED'] }) status: string;
  @ApiProperty({
    enum: ['choose', 'chosen', 'expired', 'ended'],
    description:
      '`choose`: no pair chosen yet; `chosen`: waiting for the outcome; `expired`: the token is past its lifetime; `ended`: the payment ended.',
  })
  stage: string;
  @ApiPropertyOptional({
    enum: ['success', 'fail', 'cancel'],
    description: 'Once ended: the widget callback it calls (then `complete`).',
  })
  outcome?: string;
  @ApiPropertyOptional({
    example: 'EXPIRED',
    description:
      "Once ended, with `outcome`: the session's detailed status, given to the callback.",
  })
  detailedStatus?: string;
  @ApiPropertyOptional({
    type: PaymentInstructionsDto,
    description:
      'While the payment is open, once a pair paid on chain is chosen: what to send where, the quote, and the progress of the deposits.',
  })
  payment?: PaymentInstructionsDto;
}

export class CheckoutStateEnvelopeDto {
  @ApiProperty({ type: [CheckoutStateDto], minItems: 1, maxItems: 1 })
  payload: [CheckoutStateDto];
}
