import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Length, Matches } from 'class-validator';
import { AsciiUpperCase, Omittable, Trim } from '../../common/validators.js';
import { CryptoPairDto } from './catalog-page.dto.js';
import {
  COUNTRY_CODE_PATTERN,
  COUNTRY_CODE_RULE,
  CURRENCY_CODE_PATTERN,
  CURRENCY_CODE_RULE,
  PROTOCOL_PATTERN,
  PROTOCOL_RULE,
} from './catalog-query.dto.js';

const CURRENCY_NAME_RULE = 'must be a text of 1 to 100 characters';

/** A catalog pair as the operator API and seed files give it. Codes are stored upper-case. */
export class CryptoPairInputDto {
  @ApiProperty({ example: 'USDT', pattern: '^[A-Za-z0-9]{1,16}$' })
  @IsString({ message: CURRENCY_CODE_RULE })
  @Matches(CURRENCY_CODE_PATTERN, { message: CURRENCY_CODE_RULE })
  @AsciiUpperCase()
  currencyCode: string;

  @ApiProperty({ example: 'Tether', minLength: 1, maxLength: 100 })
  @IsString({ message: CURRENCY_NAME_RULE })
  @Length(1, 100, { message: CURRENCY_NAME_RULE })
  @Trim()
  currencyName: string;

  @ApiProperty({ example: 'TRC20', pattern: '^[A-Za-z0-9_-]{1,32}$' })
  @IsString({ message: PROTOCOL_RULE })
  @Matches(PROTOCOL_PATTERN, { message: PROTOCOL_RULE })
  @AsciiUpperCase()
  protocol: string;

  @ApiProperty({ example: 'IE', pattern: '^[A-Za-z]{2}$' })
  @IsString({ message: COUNTRY_CODE_RULE })
  @Matches(COUNTRY_CODE_PATTERN, { message: COUNTRY_CODE_RULE })
  @AsciiUpperCase()
  countryCode: string;

  @ApiPropertyOptional({ example: true, default: true })
  @Omittable()
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;
}

/** What the operator may change on an existing pair. */
export class CryptoPairPatchDto {
  @ApiPropertyOptional({ example: 'Tether USD', minLength: 1, maxLength: 100 })
  @Omittable()
  @IsString({ message: CURRENCY_NAME_RULE })
  @Length(1, 100, { message: CURRENCY_NAME_RULE })
  @Trim()
  currencyName?: string;

  @ApiPropertyOptional({ example: false })
  @Omittable()
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;
}

/** A stored pair as the operator sees it: the public fields, its id and whether it is listed. */
export class StoredCryptoPairDto extends CryptoPairDto {
  @ApiProperty({ type: 'integer', example: 1 })
  id: number;

  @ApiProperty({ example: true })
  enabled: boolean;
}

/** Request bodies "Try it out" offers: each is accepted (the pair is not in the sandbox yet). */
export const CRYPTO_PAIR_INPUT_EXAMPLES = {
  newPair: {
    summary: 'A new enabled pair',
    value: {
      currencyCode: 'USDC',
      currencyName: 'USD Coin',
      protocol: 'SOLANA',
      countryCode: 'PL',
      enabled: true,
    } satisfies CryptoPairInputDto,
  },
};

export const CRYPTO_PAIR_PATCH_EXAMPLES = {
  disable: {
    summary: 'Switch the pair off',
    value: { enabled: false } satisfies CryptoPairPatchDto,
  },
  enable: { summary: 'Switch the pair on', value: { enabled: true } satisfies CryptoPairPatchDto },
  rename: {
    summary: 'Rename the currency',
    value: { currencyName: 'Tether USD' } satisfies CryptoPairPatchDto,
  },
};
