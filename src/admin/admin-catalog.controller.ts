import { Controller, HttpCode } from '@nestjs/common';
import { ValidBody, ValidParams, ValidQuery } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import { CatalogService } from '../catalog/catalog.service.js';
import { CATALOG_ADMIN_PATH } from '../catalog/catalog.routes.js';
import { CatalogFiltersDto } from '../catalog/dto/catalog-query.dto.js';
import {
  CRYPTO_PAIR_INPUT_EXAMPLES,
  CRYPTO_PAIR_PATCH_EXAMPLES,
  CryptoPairInputDto,
  CryptoPairPatchDto,
  StoredCryptoPairDto,
} from '../catalog/dto/crypto-pair-input.dto.js';
import { listingPage, type Listing } from '../common/http/envelope.js';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { PairIdParams } from './dto/admin-params.dto.js';
import { AdminCatalogPageDto } from './dto/admin-views.dto.js';

@ApiTags('Operator: catalog')
@Controller()
export class AdminCatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Endpoint({
    method: 'GET',
    path: CATALOG_ADMIN_PATH,
    operationId: 'listAllCryptoPairs',
    summary: 'Every pair, disabled ones included, paginated like the public catalog',
    description: 'Same filters, order and pages as the public catalog; never cached.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: AdminCatalogPageDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async list(@ValidQuery() query: CatalogFiltersDto): Promise<Listing<StoredCryptoPairDto>> {
    const { payload, total } = await this.catalog.listAll(query);
    return listingPage(payload, query, total);
  }

  @Endpoint({
    method: 'POST',
    path: CATALOG_ADMIN_PATH,
    operationId: 'createCryptoPair',
    summary: 'Add a pair; (currencyCode, protocol, countryCode) is unique',
    description:
      'Codes are stored upper case. The public catalog shows the change at once (its cache is ' +
      'cleared before this answers).',
    access: 'operator',
    role: 'catalog',
    requestBody: { type: CryptoPairInputDto, examples: CRYPTO_PAIR_INPUT_EXAMPLES },
    responses: [{ status: 201, type: StoredCryptoPairDto, description: 'Created.' }],
    body: true,
    errors: ['INVALID_PARAMETER', 'CONFLICT'],
    errorNotes: { CONFLICT: 'A pair with this currencyCode, protocol and countryCode exists.' },
  })
  create(
    @ValidBody() input: CryptoPairInputDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<StoredCryptoPairDto> {
    return this.catalog.create(input, call);
  }

  @Endpoint({
    method: 'PATCH',
    path: `${CATALOG_ADMIN_PATH}/:id`,
    operationId: 'updateCryptoPair',
    summary: 'Rename a pair or switch it on or off',
    description: 'Only the fields given change. The public catalog shows the change at once.',
    access: 'operator',
    role: 'catalog',
    requestBody: { type: CryptoPairPatchDto, examples: CRYPTO_PAIR_PATCH_EXAMPLES },
    responses: [{ status: 200, type: StoredCryptoPairDto, description: 'The pair as stored now.' }],
    body: true,
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No pair has this id.' },
  })
  update(
    @ValidParams() params: PairIdParams,
    @ValidBody() patch: CryptoPairPatchDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<StoredCryptoPairDto> {
    return this.catalog.update(params.id, patch, call);
  }

  @HttpCode(204)
  @Endpoint({
    method: 'DELETE',
    path: `${CATALOG_ADMIN_PATH}/:id`,
    operationId: 'deleteCryptoPair',
    summary: 'Remove a pair',
    description:
      'The public catalog stops listing it at once. To keep a pair but hide it, switch it off with updateCryptoPair.',
    access: 'operator',
    role: 'catalog',
    responses: [{ status: 204, description: 'Removed.' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No pair has this id.' },
  })
  async remove(
    @ValidParams() params: PairIdParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<void> {
    await this.catalog.remove(params.id, call);
  }
}
