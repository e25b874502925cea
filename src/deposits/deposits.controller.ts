import { Controller, HttpCode } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import type { Listing } from '../common/http/envelope.js';
import { ValidBody, ValidQuery } from '../common/validation.js';
import { DepositLists, type ListedDeposit, type WatchedAddress } from './deposit-lists.js';
import {
  DepositListDto,
  DepositListQueryDto,
  WatchedAddressListDto,
  WatchedAddressQueryDto,
} from './dto/deposit-lists.dto.js';
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
  constructor(
    private readonly deposits: DepositService,
    private readonly lists: DepositLists,
  ) {}

  @Endpoint({
    method: 'GET',
    path: 'admin/deposit-addresses',
    operationId: 'listWatchedAddresses',
    summary: 'The deposit addresses a chain watcher watches, a page at a time',
    description:
      'A network’s addresses in the order they were given, with the asset each was last quoted ' +
      'for (token contract, decimals, confirmations) and when it was given. `state=watching` ' +
      '(the default): addresses whose session is open, or ended less than ' +
      'LATE_DEPOSIT_WATCH_SECONDS ago (a late deposit is still flagged). Follow `nextCursor` ' +
      'to the last page. A watcher needs no state of its own.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: WatchedAddressListDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async watched(
    @ValidQuery() query: WatchedAddressQueryDto,
  ): Promise<Listing<WatchedAddress, { nextCursor?: string }>> {
    return this.lists.watched({
      network: query.network,
      ...(query.chainId === undefined ? {} : { chainId: query.chainId }),
      state: query.state ?? 'watching',
      size: query.size ?? 100,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
  }

  @Endpoint({
    method: 'GET',
    path: 'admin/deposits',
    operationId: 'listDeposits',
    summary: 'Reported deposits, newest first: the flagged ones for an operator to act on',
    description:
      '`flagged=true`: deposits set apart: another asset or chain, late, overpaid (the excess ' +
      'in `flaggedAmount`), underpaid at expiry (to refund). Filtered by session and network; ' +
      'each page ends with `nextCursor` while older deposits are left.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: DepositListDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async list(
    @ValidQuery() query: DepositListQueryDto,
  ): Promise<Listing<ListedDeposit, { nextCursor?: string }>> {
    return this.lists.deposits({
      ...(query.flagged === undefined ? {} : { flagged: query.flagged === 'true' }),
      ...(query.validationKey === undefined ? {} : { validationKey: query.validationKey }),
      ...(query.network === undefined ? {} : { network: query.network }),
      size: query.size ?? 20,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
  }

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
