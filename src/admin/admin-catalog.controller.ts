import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AdminOnly } from '../auth/admin.guard.js';
import { CatalogService } from '../catalog/catalog.service.js';
import { CatalogQueryDto } from '../catalog/dto/catalog-query.dto.js';
import {
  CryptoPairInputDto,
  CryptoPairPatchDto,
  StoredCryptoPairDto,
} from '../catalog/dto/crypto-pair-input.dto.js';
import { ApiErrorResponses } from '../common/http/api-error-responses.decorator.js';
import { PairIdParams } from './dto/admin-params.dto.js';
import { AdminCatalogPageDto } from './dto/admin-views.dto.js';

@ApiTags('Operator: catalog')
@AdminOnly()
@Controller('admin/crypto-pairs')
export class AdminCatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  @ApiOperation({
    summary: 'Every pair, disabled ones included, paginated like the public catalog',
  })
  @ApiOkResponse({ type: AdminCatalogPageDto })
  @ApiErrorResponses('INVALID_PARAMETER', 'UNAUTHORIZED', 'FORBIDDEN')
  async list(@Query() query: CatalogQueryDto): Promise<AdminCatalogPageDto> {
    const { payload, total } = await this.catalog.listAll(query);
    return { payload, page: { size: query.size, page: query.page, total } };
  }

  @Post()
  @ApiOperation({ summary: 'Add a pair; (currencyCode, protocol, countryCode) is unique' })
  @ApiCreatedResponse({ type: StoredCryptoPairDto })
  @ApiErrorResponses(
    'INVALID_PARAMETER',
    'MALFORMED_REQUEST',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'CONFLICT',
    'PAYLOAD_TOO_LARGE',
  )
  create(@Body() input: CryptoPairInputDto): Promise<StoredCryptoPairDto> {
    return this.catalog.create(input);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename a pair or switch it on or off' })
  @ApiOkResponse({ type: StoredCryptoPairDto })
  @ApiErrorResponses(
    'INVALID_PARAMETER',
    'MALFORMED_REQUEST',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'NOT_FOUND',
  )
  update(
    @Param() params: PairIdParams,
    @Body() patch: CryptoPairPatchDto,
  ): Promise<StoredCryptoPairDto> {
    return this.catalog.update(params.id, patch);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a pair' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrorResponses('INVALID_PARAMETER', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND')
  async remove(@Param() params: PairIdParams): Promise<void> {
    await this.catalog.remove(params.id);
  }
}
