import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { API_KEY_SCHEME } from '../swagger.js';
import { ApiErrorResponses } from '../common/http/api-error-responses.decorator.js';
import { CatalogService } from './catalog.service.js';
import { CatalogPageDto } from './dto/catalog-page.dto.js';
import { CatalogQueryDto } from './dto/catalog-query.dto.js';

@ApiTags('Catalog')
@ApiSecurity(API_KEY_SCHEME)
@Controller('api')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get(['crypto-currency-protocol-processors', 'crypto-currency-protocol-processor'])
  @ApiOperation({
    summary: 'List the enabled crypto currency and protocol pairs',
    description:
      'Enabled (currency, protocol, country) pairs a merchant may use for a crypto payout, ' +
      'ordered by currencyCode, protocol, countryCode. `page.total` counts matching records. ' +
      'Also served at the singular path `/api/crypto-currency-protocol-processor`.',
  })
  @ApiOkResponse({
    type: CatalogPageDto,
    example: {
      payload: [
        { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
      ],
      page: { size: 10, page: 0, total: 1 },
    },
  })
  @ApiErrorResponses('INVALID_PARAMETER', 'UNAUTHORIZED')
  list(@Query() query: CatalogQueryDto): Promise<CatalogPageDto> {
    return this.catalog.listEnabled(query);
  }
}
