import { Controller, HttpCode } from '@nestjs/common';
import { ValidBody, ValidParams, ValidQuery } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import {
  ApiKeyViewDto,
  CREATE_MERCHANT_EXAMPLES,
  CallbackSecretDto,
  CreateMerchantDto,
  CreatedApiKeyDto,
  CreatedMerchantDto,
  ListedMerchantDto,
  MerchantDto,
  UPDATE_MERCHANT_EXAMPLES,
  UpdateMerchantDto,
} from '../merchants/dto/merchant.dto.js';
import { ApiKeyService } from '../merchants/api-key.service.js';
import { CallbackSecretService } from '../merchants/callback-secret.service.js';
import { MerchantService } from '../merchants/merchant.service.js';
import { listingPage, type Listing } from '../common/http/envelope.js';
import { PageQueryDto } from '../common/http/page.dto.js';
import { MerchantKeyParams, MerchantParams } from './dto/admin-params.dto.js';
import { AdminApiKeyPageDto, AdminMerchantPageDto } from './dto/admin-views.dto.js';

@ApiTags('Operator: merchants')
@Controller()
export class AdminMerchantsController {
  constructor(
    private readonly merchants: MerchantService,
    private readonly keys: ApiKeyService,
    private readonly secrets: CallbackSecretService,
  ) {}

  @Endpoint({
    method: 'GET',
    path: 'admin/merchants',
    operationId: 'listMerchants',
    summary: 'Every merchant, ordered by id, paginated like the catalog',
    description:
      'Id, name and creation time: never a key or a callback secret (listApiKeys lists the keys).',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: AdminMerchantPageDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async list(@ValidQuery() query: PageQueryDto): Promise<Listing<ListedMerchantDto>> {
    const { payload, total } = await this.merchants.listMerchants(query);
    return listingPage(payload, query, total);
  }

  @Endpoint({
    method: 'POST',
    path: 'admin/merchants',
    operationId: 'createMerchant',
    summary: 'Create a merchant',
    description: 'It has no API key yet: create one with createApiKey.',
    access: 'operator',
    role: 'admin',
    requestBody: { type: CreateMerchantDto, examples: CREATE_MERCHANT_EXAMPLES },
    responses: [{ status: 201, type: CreatedMerchantDto, description: 'Created.' }],
    body: true,
    errors: ['INVALID_PARAMETER', 'CONFLICT'],
    errorNotes: { CONFLICT: 'A merchant with this id exists.' },
  })
  create(
    @ValidBody() input: CreateMerchantDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<CreatedMerchantDto> {
    return this.merchants.createMerchant(input, call);
  }

  @Endpoint({
    method: 'PATCH',
    path: 'admin/merchants/:id',
    operationId: 'updateMerchant',
    summary: 'Rename a merchant or replace the origins that may frame its checkout page',
    description:
      'Only the fields given change. `checkoutOrigins` replaces the list: origins besides those ' +
      "of each session's callback URLs that may show the checkout page in a frame.",
    access: 'operator',
    role: 'admin',
    requestBody: { type: UpdateMerchantDto, examples: UPDATE_MERCHANT_EXAMPLES },
    responses: [{ status: 200, type: MerchantDto, description: 'The merchant as it now is.' }],
    body: true,
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  update(
    @ValidParams() params: MerchantParams,
    @ValidBody() input: UpdateMerchantDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<MerchantDto> {
    return this.merchants.updateMerchant(params.id, input, call);
  }

  @Endpoint({
    method: 'POST',
    path: 'admin/merchants/:id/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description: 'The plaintext key is in this response only; the service keeps its SHA-256 hash.',
    access: 'operator',
    role: 'admin',
    responses: [{ status: 201, type: CreatedApiKeyDto, description: 'Created; works at once.' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  createKey(
    @ValidParams() params: MerchantParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<CreatedApiKeyDto> {
    return this.keys.createKey(params.id, call);
  }

  @Endpoint({
    method: 'GET',
    path: 'admin/merchants/:id/api-keys',
    operationId: 'listApiKeys',
    summary: "A merchant's API keys, revoked ones included, oldest first",
    description:
      'Each key with its id, creation and revocation times and its last 4 characters; never the key or its hash.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: AdminApiKeyPageDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  async listKeys(
    @ValidParams() params: MerchantParams,
    @ValidQuery() query: PageQueryDto,
  ): Promise<Listing<ApiKeyViewDto, { merchantId: string }>> {
    const { payload, total } = await this.keys.listKeys(params.id, query);
    return { merchantId: params.id, ...listingPage(payload, query, total) };
  }

  @HttpCode(204)
  @Endpoint({
    method: 'DELETE',
    path: 'admin/merchants/:id/api-keys/:keyId',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key; it stops working on the next request',
    description:
      'Refused at once by this instance and within 1 s by every other. The key stays listed with its revokedAt; it cannot be restored.',
    access: 'operator',
    role: 'admin',
    responses: [{ status: 204, description: 'Revoked (also when it already was).' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id, or it has no key with this keyId.' },
  })
  async revokeKey(
    @ValidParams() params: MerchantKeyParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<void> {
    await this.keys.revokeKey(params.id, params.keyId, call);
  }

  @Endpoint({
    method: 'POST',
    path: 'admin/merchants/:id/callback-secret',
    operationId: 'rotateCallbackSecret',
    summary: "Replace the merchant's callback secret",
    description:
      'The new secret is in this answer only. For 24 hours callbacks carry two signatures, one per ' +
      'secret (space-separated in webhook-signature), so receivers can switch without missing one.',
    access: 'operator',
    role: 'admin',
    responses: [{ status: 201, type: CallbackSecretDto, description: 'Rotated.' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  rotateCallbackSecret(
    @ValidParams() params: MerchantParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<CallbackSecretDto> {
    return this.secrets.rotate(params.id, call);
  }
}
