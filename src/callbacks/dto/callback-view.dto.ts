import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CALLBACK_STATES, type CallbackState } from '../callback.entity.js';

export class CallbackAttemptDto {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiPropertyOptional({ type: 'integer', example: 503, description: 'The answer, when one came.' })
  httpStatus?: number;
  @ApiPropertyOptional({ example: 'no answer in time', description: 'Why it was not a 2xx.' })
  error?: string;
  @ApiProperty({ type: 'integer', example: 41 }) durationMs: number;
}

/** A callback as the operator sees it: never its body or the merchant's secret. */
export class CallbackViewDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({
    example: 'msg_2bPXPZpb0aHn9pQeCVxRS5d4Z7c',
    description: 'The webhook-id header.',
  })
  webhookId: string;
  @ApiProperty({ example: 'SUCCESSFUL', description: 'The session status that caused it.' })
  status: string;
  @ApiProperty({
    example: 'https://merchant.example/payments/return',
    description: 'Where it goes, without the query string.',
  })
  url: string;
  @ApiProperty({ enum: CALLBACK_STATES }) state: CallbackState;
  @ApiProperty({ type: [CallbackAttemptDto] }) attempts: CallbackAttemptDto[];
  @ApiPropertyOptional({ format: 'date-time', description: 'While pending: the next attempt.' })
  nextAttemptAt?: string;
}

export class SessionCallbacksDto {
  @ApiProperty({ example: 'vk_9c1d7e2f4a' }) validationKey: string;
  @ApiProperty({ type: [CallbackViewDto] }) payload: CallbackViewDto[];
}
