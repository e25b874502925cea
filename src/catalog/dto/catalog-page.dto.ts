import { ApiProperty } from '@nestjs/swagger';

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

export class PageDto {
  @ApiProperty({ type: 'integer', example: 10, description: 'Requested page size.' })
  size: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'Zero-based page number.' })
  page: number;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'Number of matching records (not pages).',
  })
  total: number;
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
