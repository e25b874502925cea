import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import { DigitsToInteger } from '../../common/validators.js';
import { MERCHANT_ID_PATTERN, MERCHANT_ID_RULE } from '../../merchants/merchant-id.js';
import { DEMO_MERCHANT_ID } from '../../merchants/merchant-id.js';
import {
  VALIDATION_KEY_DESCRIPTION,
  VALIDATION_KEY_PATTERN,
  VALIDATION_KEY_RULE,
} from '../../payment-status/payment-status.types.js';
import { DEMO_SESSION_EXAMPLES } from '../../payment-status/dto/payment-status-view.dto.js';

export class PairIdParams {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  @Max(Number.MAX_SAFE_INTEGER, { message: 'must be a positive integer' })
  @DigitsToInteger()
  id: number;
}

/** The documentation of a route's `validationKey` that names a stored session. */
export const STORED_SESSION_KEY_PARAM = {
  name: 'validationKey',
  description: `${VALIDATION_KEY_DESCRIPTION} The examples are the sandbox's demo sessions.`,
  examples: DEMO_SESSION_EXAMPLES,
};

export class ValidationKeyParams {
  @ApiProperty({
    description: VALIDATION_KEY_DESCRIPTION,
    pattern: VALIDATION_KEY_PATTERN.source,
  })
  @IsString({ message: VALIDATION_KEY_RULE })
  @Matches(VALIDATION_KEY_PATTERN, { message: VALIDATION_KEY_RULE })
  validationKey: string;
}

export class MerchantParams {
  @ApiProperty({ example: DEMO_MERCHANT_ID, pattern: MERCHANT_ID_PATTERN.source })
  @Matches(MERCHANT_ID_PATTERN, { message: MERCHANT_ID_RULE })
  id: string;
}

export class MerchantKeyParams extends MerchantParams {
  @ApiProperty({ format: 'uuid', description: 'The keyId given when the key was created.' })
  @IsUUID('all', { message: 'must be a UUID' })
  keyId: string;
}

export class CallbackIdParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'must be a UUID' })
  id: string;
}
