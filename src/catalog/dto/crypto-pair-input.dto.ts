import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsObject,
  IsString,
  Length,
  Matches,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { SettlementDto } from '../../deposits/dto/settlement.dto.js';
import { AsciiUpperCase, Omittable, Trim } from '../../common/validators.js';
import { CryptoPairDto } from './catalog-page.dto.js';
import {
  COUNTRY_CODE_PATTERN,
  COUNTRY_CODE_RULE,
  CURRENCY_CODE_PATTERN,
  CURRENCY_CODE_RULE,
  PROTOCOL_PATTERN,
  PROTOCOL_RULE,
} from '../../common/codes.js';

const CURRENCY_NAME_RULE = 'must be a text of 1 to 100 characters';
const SETTLEMENT_RULE =
  'must be an object {network, chainId?, tokenContract?, decimals, confirmations}';

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

  @ApiPropertyOptional({
    type: SettlementDto,
    description:
      'How the pair is paid on chain; without it no checkout offers the pair for payment in production.',
  })
  @Omittable()
  @ValidateNested()
  @IsObject({ message: SETTLEMENT_RULE })
  @Type(() => SettlementDto)
  settlement?: SettlementDto;
}

/** What the operator may change on an existing pair. */
@ApiExtraModels(SettlementDto)
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

  @ApiPropertyOptional({
    // OpenAPI 3.0 has no null type: a null is an object schema that takes null alone.
    oneOf: [
      { $ref: getSchemaPath(SettlementDto) },
      { type: 'object', nullable: true, enum: [null] },
    ],
    description: 'Sets how the pair is paid on chain; `null` clears it.',
  })
  // null is a value here: it clears the settlement.
  @ValidateIf((_patch: object, value: unknown) => value !== undefined && value !== null)
  @ValidateNested()
  @IsObject({ message: `${SETTLEMENT_RULE}, or null to clear it` })
  @Type(() => SettlementDto)
  settlement?: SettlementDto | null;
}

/** A stored pair as the operator sees it: the public fields, its id and whether it is listed. */
export class StoredCryptoPairDto extends CryptoPairDto {
  @ApiProperty({ type: 'integer', example: 1 })
  id: number;

  @ApiProperty({ example: true })
  enabled: boolean;

  @ApiPropertyOptional({ type: SettlementDto, description: 'Absent when the pair has none.' })
  settlement?: SettlementDto;
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
  settledPair: {
    summary: 'A pair paid on chain: USDT on TRON',
    value: {
      currencyCode: 'USDT',
      currencyName: 'Tether',
      protocol: 'TRC20',
      countryCode: 'PL',
      settlement: {
        network: 'tron',
        tokenContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
        decimals: 6,
        confirmations: 20,
      },
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
  settle: {
    summary: 'Pay it on Ethereum (USDT, chain 1)',
    value: {
      settlement: {
        network: 'evm',
        chainId: 1,
        tokenContract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        decimals: 6,
        confirmations: 12,
      },
    } satisfies CryptoPairPatchDto,
  },
  unsettle: {
    summary: 'Clear its settlement',
    value: { settlement: null } satisfies CryptoPairPatchDto,
  },
};
