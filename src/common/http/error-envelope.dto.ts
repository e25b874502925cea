import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ErrorItemDto {
  @ApiProperty({ enum: ['VALIDATION', 'FATAL'], example: 'VALIDATION' })
  type: string;

  @ApiProperty({ example: 'INVALID_PARAMETER' })
  errorCode: string;

  @ApiProperty({ example: 'must be two letters A-Z' })
  message: string;

  @ApiPropertyOptional({
    example: 'countryCode',
    description: 'The field at fault, as a dotted path in bodies.',
  })
  field?: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ type: [ErrorItemDto] })
  errors: ErrorItemDto[];
}
