import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/http/endpoint.decorator.js';
import {
  CREATE_MERCHANT_EXAMPLES,
  CallbackSecretDto,
  CreateMerchantDto,
  CreatedApiKeyDto,
  CreatedMerchantDto,
} from '../merchants/dto/merchant.dto.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { PageQueryDto } from '../catalog/dto/page-query.dto.js';
import { MerchantKeyParams, MerchantParams } from './dto/admin-params.dto.js';
import { AdminApiKeyPageDto, AdminMerchantPageDto } from './dto/admin-views.dto.js';

@ApiTags('Operator: merchants')
@Controller('admin/merchants')
export class AdminMerchantsController {
  constructor(private readonly merchants: MerchantService) {}

  @Get()
  @Endpoint({
    operationId: 'listMerchants',
    summary: 'Every merchant, ordered by id, paginated like the catalog',
    description:
      'Id, name and creation time: never a key or a callback secret (listApiKeys lists the keys).',
    access: 'operator',
    responses: [{ status: 200, type: AdminMerchantPageDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async list(@Query() query: PageQueryDto): Promise<AdminMerchantPageDto> {
    const { payload, total } = await this.merchants.listMerchants(query);
    return { payload, page: { size: query.size, page: query.page, total } };
  }

  @Post()
  @Endpoint({
    operationId: 'createMerchant',
    summary: 'Create a merchant',
    description: 'It has no API key yet: create one with createApiKey.',
    access: 'operator',
    requestBody: { type: CreateMerchantDto, examples: CREATE_MERCHANT_EXAMPLES },
    responses: [{ status: 201, type: CreatedMerchantDto, description: 'Created.' }],
    body: true,
    errors: ['INVALID_PARAMETER', 'CONFLICT'],
    errorNotes: { CONFLICT: 'A merchant with this id exists.' },
  })
  create(@Body() input: CreateMerchantDto): Promise<CreatedMerchantDto> {
    return this.merchants.createMerchant(input);
  }

  @Post(':id/api-keys')
  @Endpoint({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description: 'The plaintext key is in this response only; the service keeps its SHA-256 hash.',
    access: 'operator',
    responses: [{ status: 201, type: CreatedApiKeyDto, description: 'Created; works at once.' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  createKey(@Param() params: MerchantParams): Promise<CreatedApiKeyDto> {
    return this.merchants.createKey(params.id);
  }

  @Get(':id/api-keys')
  @Endpoint({
    operationId: 'listApiKeys',
    summary: "A merchant's API keys, revoked ones included, oldest first",
    description:
      'Each key with its id, creation and revocation times and its last 4 characters; never the key or its hash.',
    access: 'operator',
    responses: [{ status: 200, type: AdminApiKeyPageDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  async listKeys(
    @Param() params: MerchantParams,
    @Query() query: PageQueryDto,
  ): Promise<AdminApiKeyPageDto> {
    const { payload, total } = await this.merchants.listKeys(params.id, query);
    return {
      merchantId: params.id,
      payload,
      page: { size: query.size, page: query.page, total },
    };
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @Endpoint({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key; it stops working on the next request',
    description:
      'Refused at once by this instance and within 1 s by every other. The key stays listed with its revokedAt; it cannot be restored.',
    access: 'operator',
    responses: [{ status: 204, description: 'Revoked (also when it already was).' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id, or it has no key with this keyId.' },
  })
  async revokeKey(@Param() params: MerchantKeyParams): Promise<void> {
    await this.merchants.revokeKey(params.id, params.keyId);
  }

  @Post(':id/callback-secret')
  @Endpoint({
    operationId: 'rotateCallbackSecret',
    summary: "Replace the merchant's callback secret",
    description:
      'The new secret is in this answer only. For 24 hours callbacks carry two signatures, one per ' +
      'secret (space-separated in webhook-signature), so receivers can switch without missing one.',
    access: 'operator',
    responses: [{ status: 201, type: CallbackSecretDto, description: 'Rotated.' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  rotateCallbackSecret(@Param() params: MerchantParams): Promise<CallbackSecretDto> {
    return this.merchants.rotateCallbackSecret(params.id);
  }
}
