import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/http/endpoint.decorator.js';
import { CreateMerchantDto, CreatedApiKeyDto, MerchantDto } from '../merchants/dto/merchant.dto.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { MerchantKeyParams, MerchantParams } from './dto/admin-params.dto.js';

@ApiTags('Operator: merchants')
@Controller('admin/merchants')
export class AdminMerchantsController {
  constructor(private readonly merchants: MerchantService) {}

  @Post()
  @Endpoint({
    operationId: 'createMerchant',
    summary: 'Create a merchant',
    access: 'operator',
    responses: [{ status: 201, type: MerchantDto }],
    errors: ['INVALID_PARAMETER', 'MALFORMED_REQUEST', 'CONFLICT'],
  })
  create(@Body() input: CreateMerchantDto): Promise<MerchantDto> {
    return this.merchants.createMerchant(input);
  }

  @Post(':id/api-keys')
  @Endpoint({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description: 'The plaintext key is in this response only; the service keeps its SHA-256 hash.',
    access: 'operator',
    responses: [{ status: 201, type: CreatedApiKeyDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
  })
  createKey(@Param() params: MerchantParams): Promise<CreatedApiKeyDto> {
    return this.merchants.createKey(params.id);
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @Endpoint({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key; it stops working on the next request',
    access: 'operator',
    responses: [{ status: 204, description: 'Revoked (also when it already was).' }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
  })
  async revokeKey(@Param() params: MerchantKeyParams): Promise<void> {
    await this.merchants.revokeKey(params.id, params.keyId);
  }
}
