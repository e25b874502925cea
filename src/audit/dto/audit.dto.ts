import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Length } from 'class-validator';
import { PageDto } from '../../catalog/dto/catalog-page.dto.js';
import { PageQueryDto } from '../../catalog/dto/page-query.dto.js';
import { NotRepeated } from '../../common/validators.js';

const TEXT_RULE = 'must be a text of 1 to 300 characters';
const TIME_RULE = 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z';

export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: "An operator's id or name (`root`, `unknown`, `system` too).",
  })
  @IsOptional()
  @IsString({ message: TEXT_RULE })
  @Length(1, 300, { message: TEXT_RULE })
  @NotRepeated()
  operator?: string;

  @ApiPropertyOptional({
    description: 'An operationId, e.g. `revokeApiKey`.',
    example: 'revokeApiKey',
  })
  @IsOptional()
  @IsString({ message: TEXT_RULE })
  @Length(1, 300, { message: TEXT_RULE })
  @NotRepeated()
  action?: string;

  @ApiPropertyOptional({ description: 'What was acted on: a merchant id, key id, validation key…' })
  @IsOptional()
  @IsString({ message: TEXT_RULE })
  @Length(1, 300, { message: TEXT_RULE })
  @NotRepeated()
  target?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events at or after this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: TIME_RULE })
  @NotRepeated()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events at or before this time.' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: TIME_RULE })
  @NotRepeated()
  to?: string;
}

export class AuditOperatorDto {
  @ApiProperty({
    nullable: true,
    type: 'string',
    description:
      "The operator's id; `root` for ADMIN_TOKEN, `system` for the service itself, null when the caller was not recognised.",
  })
  id: string | null;
  @ApiProperty({
    example: 'alice',
    description: '`root`, `system` or `unknown` besides operators.',
  })
  name: string;
}

/** One changed field: its value before and after (any JSON value; null when there was none). */
export interface AuditChangeDto {
  old: unknown;
  new: unknown;
}

export class AuditEventDto {
  @ApiProperty({ type: 'integer', description: 'Position in the chain: 1, 2, 3…' }) id: number;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: AuditOperatorDto }) operator: AuditOperatorDto;
  @ApiProperty({
    example: 'revokeApiKey',
    description: 'The operationId (`unknownRoute` for a path no route serves).',
  })
  action: string;
  @ApiProperty({ nullable: true, type: 'string', example: '0d9a2c4e-5b1f-4f3a-8e7d-2c6b9a1f0e3d' })
  target: string | null;
  @ApiProperty({ type: 'integer', example: 204, description: 'The HTTP status answered.' })
  outcome: number;
  @ApiProperty({ nullable: true, type: 'string' }) requestId: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['old', 'new'],
      properties: {
        old: { description: 'The value before; null when there was none.' },
        new: { description: 'The value after; null when there is none.' },
      },
    },
    description:
      'The fields changed, by name, each with its old and new value; `[redacted]` stands for a key, token, secret or personal data. Empty for a refusal.',
  })
  changes: Record<string, AuditChangeDto>;
  @ApiProperty({ description: 'SHA-256 (hex) of the previous event; 64 zeros for the first.' })
  prevHash: string;
  @ApiProperty({ description: "SHA-256 (hex) of this event's content, previous hash included." })
  hash: string;
}

export class AuditEventPageDto {
  @ApiProperty({ type: [AuditEventDto] }) payload: AuditEventDto[];
  @ApiProperty({ type: PageDto }) page: PageDto;
}

export class BrokenLinkDto {
  @ApiProperty({ type: 'integer', description: 'The id of the first event that does not hold.' })
  id: number;
  @ApiProperty({ example: 'its content does not match its hash: it was altered' })
  reason: string;
}

export class ChainVerificationDto {
  @ApiProperty({ description: 'True when every link holds.' }) valid: boolean;
  @ApiProperty({ type: 'integer', description: 'Events checked before the answer.' })
  events: number;
  @ApiPropertyOptional({
    description:
      'The hash of the last event when the chain holds: keep it elsewhere to prove later that no event was removed from the end.',
  })
  headHash?: string;
  @ApiPropertyOptional({ type: BrokenLinkDto }) brokenAt?: BrokenLinkDto;
}
