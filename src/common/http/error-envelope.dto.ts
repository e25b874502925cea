import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorCode, ErrorKind } from '../errors/error-catalog.js';

const ERROR_CODES = Object.keys(ErrorKind) as ErrorCode[];
const ERROR_TYPES = [...new Set(Object.values(ErrorKind).map((kind) => kind.type))];

export class ErrorItemDto {
  @ApiProperty({ enum: ERROR_TYPES, example: 'VALIDATION' })
  type: string;

  @ApiProperty({
    enum: ERROR_CODES,
    example: 'INVALID_PARAMETER',
    description: 'What went wrong, stable across versions: branch on it, not on `message`.',
  })
  errorCode: string;

  @ApiProperty({ example: 'must be two letters A-Z', minLength: 1 })
  message: string;

  @ApiPropertyOptional({
    example: 'countryCode',
    description: 'The field at fault, as a dotted path in bodies.',
  })
  field?: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ type: [ErrorItemDto], minItems: 1 })
  errors: ErrorItemDto[];
}
