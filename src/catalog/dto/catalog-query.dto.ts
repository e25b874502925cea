import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { DigitsToInteger, NotRepeated, UpperCase } from '../../common/validators.js';

export const CATALOG_DEFAULT_PAGE_SIZE = 10;
export const CATALOG_MAX_PAGE_SIZE = 100;
export const CATALOG_MAX_PAGE = 1_000_000;

export const COUNTRY_CODE_PATTERN = /^[A-Z]{2}$/;
export const CURRENCY_CODE_PATTERN = /^[A-Z0-9]{1,16}$/;
export const PROTOCOL_PATTERN = /^[A-Z0-9_-]{1,32}$/;
export const COUNTRY_CODE_RULE = 'must be two letters A-Z';
export const CURRENCY_CODE_RULE = 'must be 1 to 16 letters or digits';
export const PROTOCOL_RULE = 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -';

/**
 * Query of the catalog. Codes are case-insensitive and normalised to upper case;
 * unknown parameters are dropped; a parameter given twice is refused.
 */
export class CatalogQueryDto {
  @ApiPropertyOptional({
    description: 'ISO 3166-1 alpha-2 country code, case-insensitive.',
    pattern: '^[A-Za-z]{2}$',
    example: 'IE',
  })
  @IsOptional()
  @Matches(COUNTRY_CODE_PATTERN, { message: COUNTRY_CODE_RULE })
  @NotRepeated()
  @UpperCase()
  countryCode?: string;

  @ApiPropertyOptional({
    description: 'Currency code, case-insensitive.',
    pattern: '^[A-Za-z0-9]{1,16}$',
    example: 'USDT',
  })
  @IsOptional()
  @Matches(CURRENCY_CODE_PATTERN, { message: CURRENCY_CODE_RULE })
  @NotRepeated()
  @UpperCase()
  currencyCode?: string;

  @ApiPropertyOptional({
    description: 'Transfer protocol, case-insensitive.',
    pattern: '^[A-Za-z0-9_-]{1,32}$',
    example: 'TRC20',
  })
  @IsOptional()
  @Matches(PROTOCOL_PATTERN, { message: PROTOCOL_RULE })
  @NotRepeated()
  @UpperCase()
  protocol?: string;

  @ApiPropertyOptional({
    description: 'Zero-based page number.',
    type: 'integer',
    minimum: 0,
    maximum: CATALOG_MAX_PAGE,
    default: 0,
  })
  @IsInt({ message: `must be an integer from 0 to ${CATALOG_MAX_PAGE}` })
  @Min(0, { message: `must be an integer from 0 to ${CATALOG_MAX_PAGE}` })
  @Max(CATALOG_MAX_PAGE, { message: `must be an integer from 0 to ${CATALOG_MAX_PAGE}` })
  @NotRepeated()
  @DigitsToInteger()
  page: number = 0;

  @ApiPropertyOptional({
    description: 'Page size.',
    type: 'integer',
    minimum: 1,
    maximum: CATALOG_MAX_PAGE_SIZE,
    default: CATALOG_DEFAULT_PAGE_SIZE,
  })
  @IsInt({ message: `must be an integer from 1 to ${CATALOG_MAX_PAGE_SIZE}` })
  @Min(1, { message: `must be an integer from 1 to ${CATALOG_MAX_PAGE_SIZE}` })
  @Max(CATALOG_MAX_PAGE_SIZE, { message: `must be an integer from 1 to ${CATALOG_MAX_PAGE_SIZE}` })
  @NotRepeated()
  @DigitsToInteger()
  size: number = CATALOG_DEFAULT_PAGE_SIZE;
}

/** The query after validation: what the service, the repository and the cache key see. */
export type CatalogQuery = Pick<CatalogQueryDto, keyof CatalogQueryDto>;

/**
 * The parts of a cache key, one per query parameter. A parameter added to CatalogQueryDto and not
 * listed here does not compile, so two different questions can never share a cached answer.
 */
const QUERY_KEY_PARTS = {
  countryCode: true,
  currencyCode: true,
  protocol: true,
  page: true,
  size: true,
} as const satisfies Record<keyof CatalogQuery, true>;

const QUERY_KEY_NAMES = Object.keys(QUERY_KEY_PARTS) as (keyof CatalogQuery)[];

/** Cache key of a normalised query: the same question always maps to the same key. */
export function catalogQueryKey(query: CatalogQuery): string {
  return QUERY_KEY_NAMES.map((name) => query[name] ?? '').join('|');
}
