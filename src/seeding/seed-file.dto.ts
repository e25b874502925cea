import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, ValidateNested } from 'class-validator';
import { CryptoPairInputDto } from '../catalog/dto/crypto-pair-input.dto.js';
import { SeedMerchantDto } from '../merchants/dto/merchant.dto.js';
import { SeedPaymentSessionDto } from '../payment-status/dto/payment-report.dto.js';

const MAX_RECORDS = 1_000_000;
const LIST_RULE = 'must be a list of records';

/**
 * A seed file (see the README's "Seed files"): every section is optional. class-validator runs a property's
 * decorators from the bottom up, so the list check comes last in the source.
 */
export class SeedFileDto {
  @IsOptional()
  @ArrayMaxSize(MAX_RECORDS, { message: `must hold at most ${MAX_RECORDS} records` })
  @IsArray({ message: LIST_RULE })
  @ValidateNested({ each: true, message: 'must hold objects' })
  @Type(() => CryptoPairInputDto)
  cryptoPairs?: CryptoPairInputDto[];

  @IsOptional()
  @ArrayMaxSize(MAX_RECORDS, { message: `must hold at most ${MAX_RECORDS} records` })
  @IsArray({ message: LIST_RULE })
  @ValidateNested({ each: true, message: 'must hold objects' })
  @Type(() => SeedMerchantDto)
  merchants?: SeedMerchantDto[];

  @IsOptional()
  @ArrayMaxSize(MAX_RECORDS, { message: `must hold at most ${MAX_RECORDS} records` })
  @IsArray({ message: LIST_RULE })
  @ValidateNested({ each: true, message: 'must hold objects' })
  @Type(() => SeedPaymentSessionDto)
  paymentSessions?: SeedPaymentSessionDto[];
}
