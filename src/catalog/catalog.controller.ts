import { Controller, Inject, Res } from '@nestjs/common';
import { ValidQuery } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import type { Listing } from '../common/http/envelope.js';
import type { ResponseControls } from '../common/http/response.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { setting } from '../openapi/endpoint-docs.js';
import { CatalogService } from './catalog.service.js';
import { CATALOG_ALIAS_PATH, CATALOG_PATH } from './catalog.routes.js';
import { CATALOG_PAGE_EXAMPLE, CatalogPageDto, CryptoPairDto } from './dto/catalog-page.dto.js';
import { CatalogQueryDto } from './dto/catalog-query.dto.js';

/** What the catalog's answers say about caching them. */
const CACHE_HEADERS = {
  ETag: {
    description: 'Strong tag of this answer; send it in `If-None-Match` to get a 304.',
    required: true,
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: `\`private, max-age=${setting('catalogCacheTtlSeconds')}\`: the catalog is cached for CATALOG_CACHE_TTL_SECONDS (${setting('catalogCacheTtlSeconds')} s here).`,
    required: true,
    schema: { type: 'string', enum: [`private, max-age=${setting('catalogCacheTtlSeconds')}`] },
  },
};

@ApiTags('Catalog')
@Controller()
export class CatalogController {
  constructor(
    private readonly catalog: CatalogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Endpoint({
    method: 'GET',
    path: [CATALOG_PATH, CATALOG_ALIAS_PATH],
    operationId: 'listCryptoPairs',
    summary: 'List the enabled crypto currency and protocol pairs',
    description:
      'Enabled (currency, protocol, country) pairs a merchant may use for a crypto payout, ' +
      'ordered by currencyCode, protocol, countryCode. `page.total` counts matching records; a ' +
      'page past the end is an empty `payload` with the true total. Unknown query parameters are ' +
      `ignored; one given twice is a 400. Also served at \`/${CATALOG_ALIAS_PATH}\`.`,
    access: 'merchant',
    envelope: { kind: 'list', etag: true },
    aliases: [{ path: CATALOG_ALIAS_PATH, operationId: 'listCryptoPairsSingularAlias' }],
    headers: [
      {
        name: 'If-None-Match',
        description: 'An ETag from an earlier answer: 304 without a body while it still matches.',
      },
    ],
    responses: [
      {
        status: 200,
        type: CatalogPageDto,
        headers: CACHE_HEADERS,
        example: CATALOG_PAGE_EXAMPLE,
      },
      {
        status: 304,
        description: 'Not modified: the ETag given still matches. No body.',
        headers: CACHE_HEADERS,
      },
    ],
    errors: ['INVALID_PARAMETER'],
  })
  list(
    @ValidQuery() query: CatalogQueryDto,
    @Res({ passthrough: true }) response: ResponseControls,
  ): Promise<Listing<CryptoPairDto>> {
    response.header('Cache-Control', `private, max-age=${this.config.catalogCacheTtlSeconds}`);
    return this.catalog.listEnabled(query);
  }
}
