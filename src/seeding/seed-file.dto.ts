import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, ValidateNested } from 'class-validator';
import { Omittable } from '../common/validators.js';
import { CryptoPairInputDto } from '../catalog/dto/crypto-pair-input.dto.js';
import { SeedMerchantDto } from '../merchants/dto/merchant.dto.js';
import { CreateOperatorDto } from '../operators/dto/operator.dto.js';
import { SeedPaymentSessionDto } from '../payment-status/dto/payment-report.dto.js';

/** Records a section may hold. */
export const MAX_RECORDS = 1_000_000;
/** Operators a file may hold: each is written one by one, and its token printed. */
export const MAX_OPERATORS = 1_000;
const LIST_RULE = 'must be a list of records';

/** What a section's record must be. */
export const RECORD_RULE = 'must hold objects';

/**
 * A seed file (see "Seed files" in docs/api.md): every section is optional. class-validator runs a property's
 * decorators from the bottom up, so the list check comes last in the source.
 */
export class SeedFileDto {
  @Omittable()
  @ArrayMaxSize(MAX_RECORDS, { message: `must hold at most ${MAX_RECORDS} records` })
  @IsArray({ message: LIST_RULE })
  @ValidateNested({ each: true, message: RECORD_RULE })
  @Type(() => CryptoPairInputDto)
  cryptoPairs?: CryptoPairInputDto[];

  @Omittable()
  @ArrayMaxSize(MAX_RECORDS, { message: `must hold at most ${MAX_RECORDS} records` })
  @IsArray({ message: LIST_RULE })
  @ValidateNested({ each: true, message: RECORD_RULE })
  @Type(() => SeedMerchantDto)
  merchants?: SeedMerchantDto[];

  @Omittable()
  @ArrayMaxSize(MAX_RECORDS, { message: `must hold at most ${MAX_RECORDS} records` })
  @IsArray({ message: LIST_RULE })
  @ValidateNested({ each: true, message: RECORD_RULE })
  @Type(() => SeedPaymentSessionDto)
  paymentSessions?: SeedPaymentSessionDto[];

  /** People and programs of the operator API: created with a token printed once, or given a role. */
  @Omittable()
  @ArrayMaxSize(MAX_OPERATORS, { message: `must hold at most ${MAX_OPERATORS} records` })
  @IsArray({ message: LIST_RULE })
  @ValidateNested({ each: true, message: RECORD_RULE })
  @Type(() => CreateOperatorDto)
  operators?: CreateOperatorDto[];
}

/**
 * The sections a seed file may hold and the records each may hold, one per property of SeedFileDto: a property added there and
 * not listed here does not compile. Anything else in a file is refused, so a misspelt section is
 * never skipped in silence.
 */
export const SECTION_LIMITS = {
  cryptoPairs: MAX_RECORDS,
  merchants: MAX_RECORDS,
  paymentSessions: MAX_RECORDS,
  operators: MAX_OPERATORS,
} as const satisfies Record<keyof SeedFileDto, number>;

export type SeedSection = keyof SeedFileDto;

export const SEED_SECTIONS = Object.keys(SECTION_LIMITS) as readonly SeedSection[];
