import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Length, Matches } from 'class-validator';
import { Trim } from '../../common/validators.js';
import { MERCHANT_ID_PATTERN, MERCHANT_ID_RULE } from '../merchant-id.js';
import { MAX_API_KEY_LENGTH, MIN_API_KEY_LENGTH } from '../api-key.js';

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
}

/** A merchant of a seed file, with the plaintext keys it should have. */
export class SeedMerchantDto extends CreateMerchantDto {
  @ApiProperty({ type: [String], required: false })
  @IsOptional()
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
}

export class MerchantDto {
  @ApiProperty({ example: 'acme' }) id: string;
  @ApiProperty({ example: 'Acme Payments Ltd' }) name: string;
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
