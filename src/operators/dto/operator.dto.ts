import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, IsUUID, Matches, ValidateBy } from 'class-validator';
import { PageDto } from '../../common/http/page.dto.js';
import { Trim } from '../../common/validators.js';
import { OPERATOR_ROLES, type OperatorRole } from '../../access/operator-role.js';

/** Operator names: what the audit trail shows as who did a thing. */
export const OPERATOR_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$/;
const NAME_RULE =
  'must be 1 to 64 of the characters A-Z a-z 0-9 space . _ @ - (starting with a letter or digit)';
const ROLE_RULE = `must be one of ${OPERATOR_ROLES.join(', ')}`;

/**
 * Names the audit trail gives to who is not an operator: ADMIN_TOKEN, the service itself, a
 * caller not recognised. No operator may take one, in any case.
 */
export const RESERVED_OPERATOR_NAMES = ['root', 'system', 'unknown'] as const;
const NOT_RESERVED = new RegExp(`^(?!(?:${RESERVED_OPERATOR_NAMES.join('|')})$)`, 'i');
const RESERVED_RULE = `must not be ${RESERVED_OPERATOR_NAMES.join(', ')} (in any case): the audit trail uses them`;

/** A name that is not reserved; a constraint of its own, so a missing name is told NAME_RULE. */
function NotReserved(): PropertyDecorator {
  return ValidateBy({
    name: 'notReserved',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || NOT_RESERVED.test(value),
      defaultMessage: () => RESERVED_RULE,
    },
  });
}

export class CreateOperatorDto {
  @ApiProperty({
    example: 'alice',
    pattern: OPERATOR_NAME_PATTERN.source,
    description:
      'Unique among working operators regardless of case; `root`, `system` and `unknown` (in any case) are reserved.',
  })
  @IsString({ message: NAME_RULE })
  @Matches(OPERATOR_NAME_PATTERN, { message: NAME_RULE })
  @NotReserved()
  @Trim()
  name: string;

  @ApiProperty({ enum: OPERATOR_ROLES, example: 'payments' })
  @IsIn(OPERATOR_ROLES, { message: ROLE_RULE })
  role: OperatorRole;
}

/** Examples offered by "Try it out". */
export const CREATE_OPERATOR_EXAMPLES = {
  payments: {
    summary: 'Someone who reports payment outcomes',
    value: { name: 'alice', role: 'payments' },
  },
  viewer: { summary: 'A dashboard that only reads', value: { name: 'dashboard', role: 'viewer' } },
};

export class CreatedOperatorDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'alice' }) name: string;
  @ApiProperty({ enum: OPERATOR_ROLES }) role: OperatorRole;
  @ApiProperty({
    description: 'The bearer token: in this answer only; the service keeps its SHA-256.',
    example: 'op_3q2-7wEAAAD1UnS8xkIh9YbN0qXb1c0FJ6iKJvXeFhQ',
  })
  token: string;
}

export class OperatorViewDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'alice' }) name: string;
  @ApiProperty({ enum: OPERATOR_ROLES }) role: OperatorRole;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When the token was last used, to the minute; absent when never.',
  })
  lastUsedAt?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent while the token works.' })
  revokedAt?: string;
}

export class OperatorPageDto {
  @ApiProperty({ type: [OperatorViewDto] }) payload: OperatorViewDto[];
  @ApiProperty({ type: PageDto }) page: PageDto;
}

export class OperatorIdParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'must be a UUID' })
  id: string;
}
