import { Controller, HttpCode } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import { ValidBody } from '../common/validation.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { DepositService, type DepositAnswer } from './deposits.service.js';
import {
  DEPOSIT_REPORT_EXAMPLES,
  DepositAnswerEnvelopeDto,
  DepositReportDto,
} from './dto/deposit-report.dto.js';
import { tokenContractOf } from './chain-address.js';
import { NATIVE_ASSET } from './settlement.js';

@ApiTags('Operator: deposits')
@Controller()
export class DepositsController {
  constructor(private readonly deposits: DepositService) {}

  @HttpCode(200)
  @Endpoint({
    method: 'POST',
    path: 'admin/deposits',
    operationId: 'reportDeposit',
    summary: 'Report a transfer to a deposit address (a chain watcher)',
    description:
      'Idempotent per (network, txid, index): a repeat updates the confirmations, up or down to ' +
      '0 (a reorganisation: the deposit stops counting). The session becomes SUCCESSFUL, with ' +
      'its callback, once confirmed deposits of the quoted asset reach the quote; more than the ' +
      'quote is SUCCESSFUL and flagged OVERPAID. Another asset or chain, or a transfer to an ' +
      'address whose session ended, is stored and flagged, never counted. Every report that ' +
      'changes something is audited. docs/watcher-protocol.md has the whole exchange.',
    access: 'operator',
    role: 'payments',
    envelope: { kind: 'payload' },
    requestBody: { type: DepositReportDto, examples: DEPOSIT_REPORT_EXAMPLES },
    responses: [
      { status: 200, type: DepositAnswerEnvelopeDto, description: 'Taken (a repeat too).' },
    ],
    body: true,
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: {
      INVALID_PARAMETER:
        'A field breaks its rule, or the same (network, txid, index) was reported before with another address, asset, amount or chain.',
      NOT_FOUND: 'The gateway never gave this address.',
    },
  })
  report(
    @ValidBody() input: DepositReportDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<DepositAnswer> {
    return this.deposits.report(
      {
        network: input.network,
        ...(input.chainId === undefined ? {} : { chainId: input.chainId }),
        address: input.address,
        txid: input.txid.toLowerCase(),
        index: input.index,
        asset:
          input.asset === NATIVE_ASSET
            ? NATIVE_ASSET
            : (tokenContractOf(input.network, input.asset) ?? input.asset),
        amount: input.amount,
        confirmations: input.confirmations,
      },
      { call },
    );
  }
}
