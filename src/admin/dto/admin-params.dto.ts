import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import { DigitsToInteger } from '../../common/validators.js';
import { MERCHANT_ID_PATTERN, MERCHANT_ID_RULE } from '../../merchants/merchant-id.js';

export class PairIdParams {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  @Max(Number.MAX_SAFE_INTEGER, { message: 'must be a positive integer' })
  @DigitsToInteger()
  id: number;
}

export class ValidationKeyParams {
  @ApiProperty({ maxLength: 255, example: 'vk_9c1d7e2f4a' })
  @IsString({ message: 'must be a text of 1 to 255 characters' })
  @Length(1, 255, { message: 'must be a text of 1 to 255 characters' })
  validationKey: string;
}

export class MerchantParams {
  @ApiProperty({ example: 'acme' })
  @Matches(MERCHANT_ID_PATTERN, { message: MERCHANT_ID_RULE })
  id: string;
}

export class MerchantKeyParams extends MerchantParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'must be a UUID' })
  keyId: string;
}
