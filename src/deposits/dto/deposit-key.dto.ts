import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches } from 'class-validator';
import {
  DEMO_MERCHANT_ID,
  MERCHANT_ID_PATTERN,
  MERCHANT_ID_RULE,
} from '../../merchants/merchant-id.js';
import { DEPOSIT_NETWORKS, type DepositNetwork } from '../networks.js';

/** Longer than any key or phrase: the service, not a length rule, says what a text is. */
const MAX_KEY_INPUT_LENGTH = 4000;
const KEY_RULE = `must be a text of 1 to ${MAX_KEY_INPUT_LENGTH} characters`;
const NETWORK_RULE = `must be one of ${DEPOSIT_NETWORKS.join(', ')}`;

export class MerchantDepositKeysParams {
  @ApiProperty({ example: DEMO_MERCHANT_ID, pattern: MERCHANT_ID_PATTERN.source })
  @Matches(MERCHANT_ID_PATTERN, { message: MERCHANT_ID_RULE })
  id: string;
}

export class MerchantNetworkParams extends MerchantDepositKeysParams {
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'bitcoin' })
  @IsIn(DEPOSIT_NETWORKS, { message: NETWORK_RULE })
  network: DepositNetwork;
}

/** Body of PUT /admin/merchants/{id}/deposit-keys/{network}. */
export class DepositKeyInputDto {
  @ApiProperty({
    description:
      "The account's extended public key as the wallet exports it: bitcoin an account `zpub` " +
      "(BIP84) or `xpub` (BIP44); evm the `xpub` of m/44'/60'/0'; tron the `xpub` of " +
      "m/44'/195'/0'. Mainnet only. Never a private key: an extended private key, a WIF key, " +
      'a raw hex key or a recovery phrase is refused and kept nowhere.',
    example:
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
  })
  @Length(1, MAX_KEY_INPUT_LENGTH, { message: KEY_RULE })
  @IsString({ message: KEY_RULE })
  extendedPublicKey: string;
}

/** A merchant's current deposit key for a network, as the operator sees it. */
export class DepositKeyDto {
  @ApiProperty({ enum: DEPOSIT_NETWORKS, example: 'bitcoin' })
  network: DepositNetwork;

  @ApiProperty({ enum: ['xpub', 'zpub'], example: 'zpub' })
  format: 'xpub' | 'zpub';

  @ApiProperty({ enum: ['BIP44', 'BIP84'], example: 'BIP84' })
  standard: 'BIP44' | 'BIP84';

  @ApiProperty({
    description:
      'The key as registered: a public key, shown so it can be compared with the wallet.',
    example:
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
  })
  extendedPublicKey: string;

  @ApiProperty({
    description:
      "The key's own BIP32 fingerprint (hash160 of its public key, first 4 bytes): what the audit trail names.",
    example: 'fd13aac9',
  })
  fingerprint: string;

  @ApiProperty({
    description:
      'Its first three receive addresses (index 0, 1, 2 of the external chain): compare them with the wallet before any shopper is given one.',
    example: [
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
      'bc1qp59yckz4ae5c4efgw2s5wfyvrz0ala7rgvuz8z',
    ],
  })
  firstAddresses: string[];

  @ApiProperty({ type: 'integer', description: 'Addresses given to checkouts so far.', example: 4 })
  addressesGiven: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Consecutive newest addresses that never received a deposit. A restored wallet usually stops looking after 20 unused ones.',
    example: 2,
  })
  gap: number;

  @ApiPropertyOptional({
    description: 'Present from a gap of 20: what to do about it.',
    example:
      'The last 20 addresses given received nothing: a wallet restored from this key may not look beyond them (raise its gap limit).',
  })
  gapWarning?: string;

  @ApiProperty({ format: 'date-time', description: 'When the key was first registered.' })
  createdAt: string;
}

export class DepositKeyListDto {
  @ApiProperty({ type: [DepositKeyDto] }) payload: DepositKeyDto[];
}

export const DEPOSIT_KEY_EXAMPLES = {
  bitcoin: {
    summary: "The sandbox's published bitcoin account key (BIP84 zpub of the standard test phrase)",
    value: {
      extendedPublicKey:
        'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
    } satisfies DepositKeyInputDto,
  },
};
