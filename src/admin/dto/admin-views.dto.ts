import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { PageDto } from '../../common/http/page.dto.js';
import { StoredCryptoPairDto } from '../../catalog/dto/crypto-pair-input.dto.js';
import { ApiKeyViewDto, ListedMerchantDto } from '../../merchants/dto/merchant.dto.js';
import {
  PaymentStatusElement,
  STATUS_ELEMENT_MODELS,
} from '../../payment-status/dto/payment-status-view.dto.js';
import { PAYMENT_STATUSES } from '../../payment-status/payment-status.types.js';
import { ActorDto } from './admin-sessions.dto.js';

export class AdminCatalogPageDto {
  @ApiProperty({ type: [StoredCryptoPairDto] }) payload: StoredCryptoPairDto[];
  @ApiProperty({ type: PageDto }) page: PageDto;
}

export class AdminPaymentSessionDto {
  @ApiProperty({ example: 'vk_try_it_out_0001' }) validationKey: string;
  @ApiProperty({ example: 'demo' }) merchantId: string;
  @ApiProperty({ type: 'integer', example: 2, description: 'Grows by one per transition.' })
  version: number;
  @ApiProperty({
    enum: ['created', 'updated', 'unchanged'],
    description: '`unchanged`: the identical report was already stored (idempotent repeat).',
  })
  outcome: 'created' | 'updated' | 'unchanged';
  @ApiProperty({
    description: 'What the merchant now sees.',
    type: 'array',
    minItems: 1,
    maxItems: 1,
    items: { oneOf: STATUS_ELEMENT_MODELS.map((model) => ({ $ref: getSchemaPath(model) })) },
  })
  payload: [PaymentStatusElement];
}

export class TransitionDto {
  @ApiProperty({
    type: 'string',
    // OpenAPI 3.0 validators check `enum` before `nullable`: null must be one of the values.
    enum: [...PAYMENT_STATUSES, null],
    nullable: true,
    description: 'The status before; null for the report that created the session.',
  })
  from: string | null;
  @ApiProperty({ enum: PAYMENT_STATUSES, description: 'The status after.' }) to: string;
  @ApiPropertyOptional({ example: 'ABANDONED_BY_USER' }) detailedStatus?: string;
  @ApiPropertyOptional({
    type: ActorDto,
    description: 'Who made it; absent for transitions older than this record.',
  })
  by?: ActorDto;
  @ApiProperty({ format: 'date-time' }) at: string;
}

export class TransitionHistoryDto {
  @ApiProperty({ example: 'vk_demo_successful_4f9c2a7e' }) validationKey: string;
  @ApiProperty({ type: [TransitionDto] }) payload: TransitionDto[];
}

export class AdminMerchantPageDto {
  @ApiProperty({ type: [ListedMerchantDto] }) payload: ListedMerchantDto[];
  @ApiProperty({ type: PageDto }) page: PageDto;
}

export class AdminApiKeyPageDto {
  @ApiProperty({ example: 'acme' }) merchantId: string;
  @ApiProperty({ type: [ApiKeyViewDto] }) payload: ApiKeyViewDto[];
  @ApiProperty({ type: PageDto }) page: PageDto;
}
