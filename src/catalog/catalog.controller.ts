import { Controller, Get, Header, Headers, Inject, Query, Res } from '@nestjs/common';
import {
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import {
  JSON_CONTENT_TYPE,
  type ResponseControls,
  ifNoneMatchMatches,
} from '../common/http/response.js';
import { API_KEY_SCHEME } from '../swagger.js';
import { ApiErrorResponses } from '../common/http/api-error-responses.decorator.js';
import { CatalogService } from './catalog.service.js';
import { CatalogPageDto } from './dto/catalog-page.dto.js';
import { CatalogQueryDto } from './dto/catalog-query.dto.js';

@ApiTags('Catalog')
@ApiSecurity(API_KEY_SCHEME)
@Controller('api')
export class CatalogController {
  constructor(
    private readonly catalog: CatalogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(['crypto-currency-protocol-processors', 'crypto-currency-protocol-processor'])
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'An ETag from an earlier answer: 304 without a body while it still matches.',
  })
  @ApiResponse({ status: 304, description: 'Not modified: the ETag given still matches.' })
  @ApiOperation({
    summary: 'List the enabled crypto currency and protocol pairs',
    description:
      'Enabled (currency, protocol, country) pairs a merchant may use for a crypto payout, ' +
      'ordered by currencyCode, protocol, countryCode. `page.total` counts matching records. ' +
      'Also served at the singular path `/api/crypto-currency-protocol-processor`.',
  })
  @ApiOkResponse({
    type: CatalogPageDto,
    headers: {
      ETag: { description: 'Strong tag of this answer.', schema: { type: 'string' } },
      'Cache-Control': { description: 'private, max-age=<cache TTL>', schema: { type: 'string' } },
    },
    example: {
      payload: [
        { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
      ],
      page: { size: 10, page: 0, total: 1 },
    },
  })
  @ApiErrorResponses('INVALID_PARAMETER', 'UNAUTHORIZED')
  async list(
    @Query() query: CatalogQueryDto,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: ResponseControls,
  ): Promise<string> {
    const page = await this.catalog.listEnabled(query);
    response.header('ETag', page.etag);
    response.header('Cache-Control', `private, max-age=${this.config.catalogCacheTtlSeconds}`);
    if (ifNoneMatchMatches(ifNoneMatch, page.etag)) {
      response.status(304);
      return '';
    }
    return page.body;
  }
}
