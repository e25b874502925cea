import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, ValidateBy } from 'class-validator';
import { CURRENCY_CODE_PATTERN, CURRENCY_CODE_RULE } from '../../common/codes.js';
import { AsciiUpperCase } from '../../common/validators.js';
import { parsePrice, PRICE_FRACTION_DIGITS, PRICE_INTEGER_DIGITS } from '../crypto-amount.js';

const FIAT_PATTERN = /^[A-Z][A-Z0-9]{2,15}$/;
const FIAT_RULE = 'must be a currency code of 3 to 16 letters or digits';
const PRICE_RULE =
  `must be a decimal text above 0, such as "0.9213", with at most ${PRICE_INTEGER_DIGITS} ` +
  `digits before the point and ${PRICE_FRACTION_DIGITS} after it`;

export class RateParams {
  @ApiProperty({ example: 'USDT', pattern: '^[A-Za-z0-9]{1,16}$' })
  @Matches(CURRENCY_CODE_PATTERN, { message: CURRENCY_CODE_RULE })
  @AsciiUpperCase()
  currencyCode: string;
}

/** Body of PUT /admin/rates/{currencyCode}. */
export class RateInputDto {
  @ApiProperty({
    description: "The fiat currency of the price: a session quotes only in its money's currency.",
    example: 'EUR',
    pattern: '^[A-Za-z][A-Za-z0-9]{2,15}$',
  })
  @Matches(FIAT_PATTERN, { message: FIAT_RULE })
  @IsString({ message: FIAT_RULE })
  @AsciiUpperCase()
  fiat: string;

  @ApiProperty({
    description:
      'The price of one whole unit of the asset in the fiat, as a decimal text (never a JSON number: it is kept exactly).',
    example: '0.9213',
    pattern: `^(0|[1-9]\\d{0,${PRICE_INTEGER_DIGITS - 1}})(\\.\\d{1,${PRICE_FRACTION_DIGITS}})?$`,
  })
  @ValidateBy(
    {
      name: 'isPrice',
      validator: { validate: (value: unknown) => parsePrice(value) !== undefined },
    },
    { message: PRICE_RULE },
  )
  price: string;
}

/** A rate as the operator sees it. */
export class RateDto {
  @ApiProperty({ example: 'USDT' }) currencyCode: string;
  @ApiProperty({ example: 'EUR' }) fiat: string;
  @ApiProperty({ example: '0.9213' }) price: string;
  @ApiProperty({ format: 'date-time', description: 'When it was put.' }) updatedAt: string;
  @ApiProperty({ type: 'integer', description: 'Seconds since it was put.', example: 12 })
  ageSeconds: number;
  @ApiProperty({
    description: 'Older than RATE_MAX_AGE_SECONDS: it quotes nothing until it is put again.',
    example: false,
  })
  stale: boolean;
}

export class RateListDto {
  @ApiProperty({ type: [RateDto] }) payload: RateDto[];
}

export const RATE_EXAMPLES = {
  usdtInEuro: {
    summary: 'One USDT in euro',
    value: { fiat: 'EUR', price: '0.9213' } satisfies RateInputDto,
  },
};
