import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { DigitsToInteger, NotRepeated } from '../validators.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
export const MAX_PAGE = 1_000_000;

const PAGE_RULE = `must be an integer from 0 to ${MAX_PAGE}`;
const SIZE_RULE = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/** `page` and `size` of every paginated list: the catalog and the operator's lists. */
export class PageQueryDto {
  @ApiPropertyOptional({
    description: 'Zero-based page number.',
    type: 'integer',
    minimum: 0,
    maximum: MAX_PAGE,
    default: 0,
  })
  @IsInt({ message: PAGE_RULE })
  @Min(0, { message: PAGE_RULE })
  @Max(MAX_PAGE, { message: PAGE_RULE })
  @NotRepeated()
  @DigitsToInteger()
  page: number = 0;

  @ApiPropertyOptional({
    description: 'Page size.',
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
  })
  @IsInt({ message: SIZE_RULE })
  @Min(1, { message: SIZE_RULE })
  @Max(MAX_PAGE_SIZE, { message: SIZE_RULE })
  @NotRepeated()
  @DigitsToInteger()
  size: number = DEFAULT_PAGE_SIZE;
}

/** `page` of every paginated answer: the catalog and the operator's lists. */
export class PageDto {
  @ApiProperty({ type: 'integer', example: 10, description: 'Requested page size.' })
  size: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'Zero-based page number.' })
  page: number;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'Number of matching records (not pages).',
  })
  total: number;
}
