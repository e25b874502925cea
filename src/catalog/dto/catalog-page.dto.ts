import { ApiProperty } from '@nestjs/swagger';
import { PageDto } from '../../common/http/page.dto.js';

export class CryptoPairDto {
  @ApiProperty({ example: 'USDT' })
  currencyCode: string;

  @ApiProperty({ example: 'Tether' })
  currencyName: string;

  @ApiProperty({ example: 'TRC20' })
  protocol: string;

  @ApiProperty({ example: 'IE' })
  countryCode: string;
}

export class CatalogPageDto {
  @ApiProperty({ type: [CryptoPairDto] })
  payload: CryptoPairDto[];

  @ApiProperty({ type: PageDto })
  page: PageDto;
}

/** An answer of the catalog, as the documentation shows it. */
export const CATALOG_PAGE_EXAMPLE: CatalogPageDto = {
  payload: [{ currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' }],
  page: { size: 10, page: 0, total: 1 },
};
