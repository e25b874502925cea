import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/admin.guard.js';
import { ApiErrorResponses } from '../common/http/api-error-responses.decorator.js';
import { CreateMerchantDto, CreatedApiKeyDto, MerchantDto } from '../merchants/dto/merchant.dto.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { MerchantKeyParams, MerchantParams } from './dto/admin-params.dto.js';

@ApiTags('Operator: merchants')
@AdminOnly()
@Controller('admin/merchants')
export class AdminMerchantsController {
  constructor(private readonly merchants: MerchantService) {}

  @Post()
  @ApiOperation({ summary: 'Create a merchant' })
  @ApiCreatedResponse({ type: MerchantDto })
  @ApiErrorResponses(
    'INVALID_PARAMETER',
    'MALFORMED_REQUEST',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'CONFLICT',
  )
  create(@Body() input: CreateMerchantDto): Promise<MerchantDto> {
    return this.merchants.createMerchant(input);
  }

  @Post(':id/api-keys')
  @ApiOperation({
    summary: 'Create an API key',
    description: 'The plaintext key is in this response only; the service keeps its SHA-256 hash.',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiErrorResponses('INVALID_PARAMETER', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND')
  createKey(@Param() params: MerchantParams): Promise<CreatedApiKeyDto> {
    return this.merchants.createKey(params.id);
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key; it stops working on the next request' })
  @ApiNoContentResponse({ description: 'Revoked (also when it already was).' })
  @ApiErrorResponses('INVALID_PARAMETER', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND')
  async revokeKey(@Param() params: MerchantKeyParams): Promise<void> {
    await this.merchants.revokeKey(params.id, params.keyId);
  }
}
