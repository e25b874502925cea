import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CatalogService } from '../catalog/catalog.service.js';
import { CATALOG_ADMIN_PATH } from '../catalog/catalog.routes.js';
import { CatalogQueryDto } from '../catalog/dto/catalog-query.dto.js';
import {
  CryptoPairInputDto,
  CryptoPairPatchDto,
  StoredCryptoPairDto,
} from '../catalog/dto/crypto-pair-input.dto.js';
import { Endpoint } from '../common/http/endpoint.decorator.js';
import { PairIdParams } from './dto/admin-params.dto.js';
import { AdminCatalogPageDto } from './dto/admin-views.dto.js';

@ApiTags('Operator: catalog')
@Controller(CATALOG_ADMIN_PATH)
export class AdminCatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  @Endpoint({
    operationId: 'listAllCryptoPairs',
    summary: 'Every pair, disabled ones included, paginated like the public catalog',
    access: 'operator',
    responses: [{ status: 200, type: AdminCatalogPageDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async list(@Query() query: CatalogQueryDto): Promise<AdminCatalogPageDto> {
    const { payload, total } = await this.catalog.listAll(query);
    return { payload, page: { size: query.size, page: query.page, total } };
  }

  @Post()
  @Endpoint({
    operationId: 'createCryptoPair',
    summary: 'Add a pair; (currencyCode, protocol, countryCode) is unique',
    access: 'operator',
    responses: [{ status: 201, type: StoredCryptoPairDto }],
    body: true,
    errors: ['INVALID_PARAMETER', 'MALFORMED_REQUEST', 'CONFLICT', 'PAYLOAD_TOO_LARGE'],
  })
  create(@Body() input: CryptoPairInputDto): Promise<StoredCryptoPairDto> {
    return this.catalog.create(input);
  }

  @Patch(':id')
  @Endpoint({
    operationId: 'updateCryptoPair',
    summary: 'Rename a pair or switch it on or off',
    access: 'operator',
    responses: [{ status: 200, type: StoredCryptoPairDto }],
    body: true,
    errors: ['INVALID_PARAMETER', 'MALFORMED_REQUEST', 'NOT_FOUND'],
  })
  update(
    @Param() params: PairIdParams,
    @Body() patch: CryptoPairPatchDto,
  ): Promise<StoredCryptoPairDto> {
    return this.catalog.update(params.id, patch);
  }

  @Delete(':id')
  @HttpCode(204)
  @Endpoint({
    operationId: 'deleteCryptoPair',
    summary: 'Remove a pair',
    access: 'operator',
    responses: [{ status: 204, description: 'Removed.' }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
  })
  async remove(@Param() params: PairIdParams): Promise<void> {
    await this.catalog.remove(params.id);
  }
}
