import { Controller, HttpCode } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import type { Listing } from '../common/http/envelope.js';
import { ValidBody, ValidParams } from '../common/validation.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { DepositKeyService } from './deposit-keys.service.js';
import {
  DEPOSIT_KEY_EXAMPLES,
  DepositKeyDto,
  DepositKeyInputDto,
  DepositKeyListDto,
  MerchantDepositKeysParams,
  MerchantNetworkParams,
} from './dto/deposit-key.dto.js';

const KEYS_PATH = 'admin/merchants/:id/deposit-keys';

@ApiTags('Operator: deposits')
@Controller()
export class DepositKeysController {
  constructor(private readonly keys: DepositKeyService) {}

  @Endpoint({
    method: 'PUT',
    path: `${KEYS_PATH}/:network`,
    operationId: 'putDepositKey',
    summary: "Register the merchant's watch-only account key for a network",
    description:
      'Mainnet account keys only, checksum verified: bitcoin `zpub` (BIP84, `bc1q…`) or `xpub` ' +
      "(BIP44, `1…`); evm the `xpub` of m/44'/60'/0' (EIP-55 addresses); tron the `xpub` of " +
      "m/44'/195'/0' (`T…`). The answer shows the key's fingerprint and its first three receive " +
      'addresses: compare them with the wallet. It replaces the current key for the network ' +
      '(addresses already given keep their sessions); a key registered before continues its own ' +
      'index sequence. **A private key is never taken**: an extended private key, a WIF key, a ' +
      'raw hex key or a recovery phrase is a 400 and is kept nowhere (no log line, audit event, ' +
      'answer or row). Audited with the fingerprint, never the key.',
    access: 'operator',
    role: 'admin',
    requestBody: { type: DepositKeyInputDto, examples: DEPOSIT_KEY_EXAMPLES },
    responses: [{ status: 200, type: DepositKeyDto, description: 'The current key now.' }],
    body: true,
    errors: ['INVALID_PARAMETER', 'NOT_FOUND', 'CONFLICT'],
    errorNotes: {
      INVALID_PARAMETER:
        'Not a mainnet account key the network takes (the message says why), or private key material: "The gateway takes watch-only public keys only".',
      NOT_FOUND: 'No merchant has this id.',
      CONFLICT:
        'The key is registered to another merchant (even one that removed it since), or for another network.',
    },
  })
  put(
    @ValidParams() params: MerchantNetworkParams,
    @ValidBody() input: DepositKeyInputDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<DepositKeyDto> {
    return this.keys.put(params.id, params.network, input.extendedPublicKey, call);
  }

  @Endpoint({
    method: 'GET',
    path: KEYS_PATH,
    operationId: 'listDepositKeys',
    summary: "The merchant's current deposit keys, one per network at most",
    description:
      'Each with its fingerprint, first three receive addresses, the addresses given so far and ' +
      'the gap (consecutive newest addresses that received nothing), with a warning from 20.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: DepositKeyListDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id.' },
  })
  async list(@ValidParams() params: MerchantDepositKeysParams): Promise<Listing<DepositKeyDto>> {
    return { items: await this.keys.list(params.id) };
  }

  @HttpCode(204)
  @Endpoint({
    method: 'DELETE',
    path: `${KEYS_PATH}/:network`,
    operationId: 'deleteDepositKey',
    summary: "Remove the merchant's key for a network",
    description:
      'New checkouts are no longer offered its pairs; addresses already given keep their ' +
      "sessions and are still watched. The key stays the merchant's: registered again, it " +
      'continues its index sequence; no other merchant can register it.',
    access: 'operator',
    role: 'admin',
    responses: [{ status: 204, description: 'Removed.' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No merchant has this id, or it has no key for this network.' },
  })
  async remove(
    @ValidParams() params: MerchantNetworkParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<void> {
    await this.keys.remove(params.id, params.network, call);
  }
}
