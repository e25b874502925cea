import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, ValidateNested } from 'class-validator';
import { CryptoPairInputDto } from '../catalog/dto/crypto-pair-input.dto.js';
import { SeedMerchantDto } from '../merchants/dto/merchant.dto.js';
import { SeedPaymentSessionDto } from '../payment-status/dto/payment-report.dto.js';

const MAX_RECORDS = 1_000_000;
const LIST_RULE = 'must be a list of records';

/** A seed file (section 7): every section is optional. */
export class SeedFileDto {
  @IsOptional()
  @IsArray({ message: LIST_RULE })
  @ArrayMaxSize(MAX_RECORDS)
  @ValidateNested({ each: true, message: 'must hold objects' })
  @Type(() => CryptoPairInputDto)
  cryptoPairs?: CryptoPairInputDto[];

  @IsOptional()
  @IsArray({ message: LIST_RULE })
  @ArrayMaxSize(MAX_RECORDS)
  @ValidateNested({ each: true, message: 'must hold objects' })
  @Type(() => SeedMerchantDto)
  merchants?: SeedMerchantDto[];

  @IsOptional()
  @IsArray({ message: LIST_RULE })
  @ArrayMaxSize(MAX_RECORDS)
  @ValidateNested({ each: true, message: 'must hold objects' })
  @Type(() => SeedPaymentSessionDto)
  paymentSessions?: SeedPaymentSessionDto[];
}
