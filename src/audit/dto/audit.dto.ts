import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsInt,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { REFUSAL_REASONS, type RefusalReason } from '../../access/access-ports.js';
import { ACTOR_KINDS, type ActorKind } from '../audit-chain.js';
import { PageDto, PageQueryDto } from '../../common/http/page.dto.js';
import { isDateOnly, isZonedDateTime } from '../../common/iso-time.js';
import { DigitsToInteger, IsPlainText, NotRepeated, Omittable } from '../../common/validators.js';

const TEXT_RULE = 'must be a text of 1 to 300 characters without control characters';
const TIME_RULE =
  'must be a date-time with its time zone, e.g. 2026-01-31T12:00:00Z, or a date, e.g. 2026-01-31, for that whole day (UTC)';

/** Whether the text is a time filter of the trail: a zoned date-time, or a date alone. */
function isAuditTime(value: unknown): boolean {
  return isZonedDateTime(value) || isDateOnly(value);
}

/** A time filter of the trail: a date-time with its zone, or a date meaning that whole day (UTC). */
function IsAuditTime(): PropertyDecorator {
  return ValidateBy({
    name: 'isAuditTime',
    validator: { validate: isAuditTime, defaultMessage: () => TIME_RULE },
  });
}

/**
 * The stored form of a time filter (ISO, milliseconds, UTC): a date alone is its first
 * millisecond as `from`, its last as `to`, so that either bound takes in the whole day.
 */
export function auditTimeBound(time: string, bound: 'from' | 'to'): string {
  if (isDateOnly(time)) {
    return bound === 'from' ? `${time}T00:00:00.000Z` : `${time}T23:59:59.999Z`;
  }
  return new Date(time).toISOString();
}

export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: "An operator's id or name (`root`, `unknown`, `system` too).",
  })
  @Omittable()
  @IsString({ message: TEXT_RULE })
  @Length(1, 300, { message: TEXT_RULE })
  @IsPlainText({ message: TEXT_RULE })
  @NotRepeated()
  operator?: string;

  @ApiPropertyOptional({
    description: 'An operationId, e.g. `revokeApiKey`.',
    example: 'revokeApiKey',
  })
  @Omittable()
  @IsString({ message: TEXT_RULE })
  @Length(1, 300, { message: TEXT_RULE })
  @IsPlainText({ message: TEXT_RULE })
  @NotRepeated()
  action?: string;

  @ApiPropertyOptional({ description: 'What was acted on: a merchant id, key id, validation key…' })
  @Omittable()
  @IsString({ message: TEXT_RULE })
  @Length(1, 300, { message: TEXT_RULE })
  @IsPlainText({ message: TEXT_RULE })
  @NotRepeated()
  target?: string;

  @ApiPropertyOptional({
    description:
      'Events at or after this time: a date-time with its time zone (`2026-11-25T09:00:00Z`), or a date (`2026-11-25`) for the start of that day, UTC.',
    example: '2026-11-25T00:00:00Z',
  })
  @Omittable()
  @IsAuditTime()
  @NotRepeated()
  from?: string;

  @ApiPropertyOptional({
    description:
      'Events at or before this time: a date-time with its time zone, or a date (`2026-11-25`) for the end of that day, UTC, so that `from=2026-11-25&to=2026-11-25` is the whole day.',
    example: '2026-11-25T23:59:59Z',
  })
  @Omittable()
  @IsAuditTime()
  @NotRepeated()
  to?: string;
}

const HEAD_RULE = 'must be the link of a kept head: 64 hex digits, given together with events';
const EVENTS_RULE = `must be the number of events of a kept head, an integer from 0 to ${Number.MAX_SAFE_INTEGER}, given together with head`;

/** A head kept earlier, to check that the chain still holds it; both or neither. */
export class VerifyQueryDto {
  @ApiPropertyOptional({
    description:
      'The `headHash` of a head kept earlier (from `/admin/audit-events/head`, the log or `/metrics`); with `events`.',
    pattern: '^[0-9a-f]{64}$',
  })
  @ValidateIf((query: VerifyQueryDto) => query.head !== undefined || query.events !== undefined)
  @IsString({ message: HEAD_RULE })
  @Matches(/^[0-9a-f]{64}$/, { message: HEAD_RULE })
  @NotRepeated()
  @Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value))
  head?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: 'The `events` of the same kept head; with `head`.',
  })
  @ValidateIf((query: VerifyQueryDto) => query.head !== undefined || query.events !== undefined)
  @IsInt({ message: EVENTS_RULE })
  @Min(0, { message: EVENTS_RULE })
  @Max(Number.MAX_SAFE_INTEGER, { message: EVENTS_RULE })
  @NotRepeated()
  @DigitsToInteger()
  events?: number;
}

export class AuditOperatorDto {
  @ApiProperty({
    enum: ACTOR_KINDS,
    description:
      "`root` (ADMIN_TOKEN), `system` (the service itself), `operator` (an operator's own token), `unknown` (a caller not recognised).",
  })
  kind: ActorKind;
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
    description:
      'The operationId (`unknownRoute` for a path no route serves; `refusedRequests` for the refusals of one client address counted in one minute, its address as the `target` and the counts in `changes`).',
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
    nullable: true,
    description:
      'The fields changed, by name, each with its old and new value; `[redacted]` stands for a key, token, secret or personal data. Empty for a refusal. Null only for a row altered in the database so that its changes are not a JSON object (`verify` names it).',
  })
  changes: Record<string, AuditChangeDto> | null;
  @ApiPropertyOptional({
    enum: REFUSAL_REASONS,
    description:
      "Refusals only: why the request was refused — no bearer token, a token nobody holds, a revoked operator's token (the operator is named), or too small a role.",
  })
  reason?: RefusalReason;
  @ApiProperty({
    nullable: true,
    type: 'string',
    example: '3f9a0c1d7e2b4a65',
    description:
      'Which audit key made the link (16 hex digits derived from the key). Null for an event linked before the chain was keyed (plain SHA-256), which the keyed `keyAuditChain` event after it vouches for.',
  })
  keyId: string | null;
  @ApiProperty({ description: 'The link of the previous event (hex); 64 zeros for the first.' })
  prevHash: string;
  @ApiProperty({
    description:
      "The link: HMAC-SHA256 (hex), under the audit key `keyId`, of this event's content, the previous link included.",
  })
  hash: string;
}

export class AuditEventPageDto {
  @ApiProperty({ type: [AuditEventDto] }) payload: AuditEventDto[];
  @ApiProperty({ type: PageDto }) page: PageDto;
}

export class BrokenLinkDto {
  @ApiProperty({
    type: 'integer',
    description:
      "The id of the first event that does not hold (a kept head's event when that is what fails; 0 for a kept head of an empty chain).",
  })
  id: number;
  @ApiProperty({ example: 'its content does not match its hash: it was altered' })
  reason: string;
}

export class AuditHeadDto {
  @ApiProperty({ type: 'integer', description: 'Events in the chain: the id of its last one.' })
  events: number;
  @ApiProperty({
    description: 'The link of the last event (64 zeros for an empty chain): keep it with `events`.',
    example: '7c02e4d1a9b35f60c8e2a4d6b1f3e5a7c9d0b2e4f6a8c1d3e5f7a9b0c2d4e6f8',
  })
  headHash: string;
  @ApiProperty({
    nullable: true,
    type: 'string',
    format: 'date-time',
    description: 'The time of the last event; null for an empty chain.',
  })
  at: string | null;
}

export class ChainVerificationDto {
  @ApiProperty({ description: 'True when every link holds.' }) valid: boolean;
  @ApiProperty({ type: 'integer', description: 'Events checked before the answer.' })
  events: number;
  @ApiPropertyOptional({
    description:
      'The link of the last event when the chain holds: keep it with `events` elsewhere, and ask again with `?head=&events=` to prove later that the chain still holds it.',
  })
  headHash?: string;
  @ApiPropertyOptional({ type: BrokenLinkDto }) brokenAt?: BrokenLinkDto;
}
