import { ApiPropertyOptional } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { AsciiUpperCase, NotRepeated, Omittable } from '../../common/validators.js';
import { PageQueryDto } from '../../common/http/page.dto.js';
import {
  COUNTRY_CODE_PATTERN,
  COUNTRY_CODE_RULE,
  CURRENCY_CODE_PATTERN,
  CURRENCY_CODE_RULE,
  PROTOCOL_PATTERN,
  PROTOCOL_RULE,
} from '../../common/codes.js';
import type { CryptoPairRecord } from '../crypto-pair.repository.js';

/**
 * The filters of the catalog that the operator's list of pairs takes too, and a page. Codes are
 * case-insensitive and normalised to upper case; unknown parameters are dropped; a parameter
 * given twice is refused.
 */
export class CatalogFiltersDto extends PageQueryDto {
  @ApiPropertyOptional({
    description:
      'ISO 3166-1 alpha-2 country code, case-insensitive, such as `IE`. No filter when absent.',
    pattern: '^[A-Za-z]{2}$',
  })
  @Omittable()
  @Matches(COUNTRY_CODE_PATTERN, { message: COUNTRY_CODE_RULE })
  @NotRepeated()
  @AsciiUpperCase()
  countryCode?: string;

  @ApiPropertyOptional({
    description: 'Currency code, case-insensitive, such as `USDT`. No filter when absent.',
    pattern: '^[A-Za-z0-9]{1,16}$',
  })
  @Omittable()
  @Matches(CURRENCY_CODE_PATTERN, { message: CURRENCY_CODE_RULE })
  @NotRepeated()
  @AsciiUpperCase()
  currencyCode?: string;

  @ApiPropertyOptional({
    description: 'Transfer protocol, case-insensitive, such as `TRC20`. No filter when absent.',
    pattern: '^[A-Za-z0-9_-]{1,32}$',
  })
  @Omittable()
  @Matches(PROTOCOL_PATTERN, { message: PROTOCOL_RULE })
  @NotRepeated()
  @AsciiUpperCase()
  protocol?: string;
}

/**
 * Query of the public catalog: the filters above, and any the merchants' catalog alone takes (a
 * filter declared here is not one of the operator's list).
 */
export class CatalogQueryDto extends CatalogFiltersDto {}

/** The query after validation: what the service, the repository and the cache key see. */
export type CatalogQuery = Pick<CatalogQueryDto, keyof CatalogQueryDto>;

/** A filter of the catalog: every query parameter but the page's. */
export type CatalogFilter = Exclude<keyof CatalogQuery, keyof PageQueryDto>;

/**
 * Each filter of the catalog and the pair's property it must equal: the one list the repository
 * (its WHERE) and the cache key (below) read. A filter added to CatalogQueryDto and not listed
 * here does not compile, so two different questions can never share a cached answer.
 */
export const CATALOG_FILTERS = {
  countryCode: 'countryCode',
  currencyCode: 'currencyCode',
  protocol: 'protocol',
} as const satisfies Record<CatalogFilter, keyof CryptoPairRecord>;

const QUERY_KEY_NAMES: readonly (keyof CatalogQuery)[] = [
  ...(Object.keys(CATALOG_FILTERS) as CatalogFilter[]),
  'page',
  'size',
];

/** Cache key of a normalised query: the same question always maps to the same key. */
export function catalogQueryKey(query: CatalogQuery): string {
  return QUERY_KEY_NAMES.map((name) => query[name] ?? '').join('|');
}
