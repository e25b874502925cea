import { Injectable, Logger } from '@nestjs/common';
import type { OperatorCall } from '../access/operator-call.js';
import { AuditTrail, type ChangeRecord } from '../audit/audit-trail.service.js';
import { changesBetween } from '../audit/changes.js';
import { ApiError } from '../common/errors/api-error.js';
import { isLostRace } from '../database/dialect.js';
import type { Tx } from '../database/transactions.js';
import type { Actor } from '../payment-status/actor.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import type { PaymentStatus } from '../payment-status/payment-status.types.js';
import { lookupOf, pairName } from './checkout-payments.service.js';
import { formatAtomicUnits } from './crypto-amount.js';
import { DepositKeyService } from './deposit-keys.service.js';
import {
  DepositFlag,
  DepositRecord,
  expiryVerdict,
  flagAfterEnd,
  flagAtFirstSight,
  isConfirmed,
  mayCount,
  sameAsset,
  settlementOf,
  tally,
} from './deposit-rules.js';
import { DepositChange, DepositRepository, QuoteRecord } from './deposits.repository.js';
import type { DepositNetwork } from './networks.js';
import { PaidSessionReports } from './paid-session-reports.js';
import { fiatMinorOf } from './quote-rules.js';
import { QuoteRenewal } from './quote-renewal.js';

/** A transfer as a watcher reports it, its fields checked and written as stored. */
export interface DepositReport {
  network: DepositNetwork;
  /** EVM only; absent: the chain of the address's pair. */
  chainId?: number;
  address: string;
  /** Lower case on EVM chains. */
  txid: string;
  index: number;
  /** The token contract (EIP-55 on EVM chains), or `native`. */
  asset: string;
  /** Atomic units, a decimal integer above 0. */
  amount: string;
  confirmations: number;
}

/** What the gateway made of a report (docs/watcher-protocol.md). */
export interface DepositAnswer {
  network: DepositNetwork;
  address: string;
  txid: string;
  index: number;
  asset: string;
  amount: string;
  confirmations: number;
  counted: boolean;
  flag?: DepositFlag;
  session: { status: PaymentStatus };
}

/** Who reports: an operator (a watcher) or the sandbox's deposit buttons. */
export type Reporter = { call: OperatorCall } | { sandbox: true };

/** The detailed status of a session that expired with less than its quote received. */
export const UNDERPAID = 'UNDERPAID';

/** Times a report runs again after losing a race, before it fails. */
const REPORT_ATTEMPTS = 3;

/**
 * The session changed between its read and its transition (another writer ended it: an
 * operator's report, the checkout page): the report is judged again, in a new transaction.
 */
class SessionChanged extends Error {}

const ENDED = 'This payment session is no longer open.';

/** What the checkout's expiry is to do with an open session past its time. */
export type ExpiryDecision =
  { kind: 'hold' } | { kind: 'underpaid'; errorMessage: string } | { kind: 'expire' };

/**
 * The deposits a chain watcher reports (docs/watcher-protocol.md), and what they do to their
 * sessions: idempotent per (network, txid, index); a session becomes SUCCESSFUL, with its
 * callback, once confirmed deposits of the quoted asset reach its quote; what may not count is
 * stored and flagged, never lost and never changing a final state. Each report is judged under
 * its address's lock, in one transaction with the session's transition and the audit events.
 */
@Injectable()
export class DepositService {
  private readonly logger = new Logger('Deposits');

  constructor(
    private readonly deposits: DepositRepository,
    private readonly keys: DepositKeyService,
    private readonly sessions: PaymentSessionService,
    private readonly paidReports: PaidSessionReports,
    private readonly renewal: QuoteRenewal,
    private readonly audit: AuditTrail,
  ) {}

  async report(
    report: DepositReport,
    reporter: Reporter,
    now = Date.now(),
  ): Promise<DepositAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sessions.transact((tx) => this.apply(tx, report, reporter, now));
      } catch (error) {
        // Another report stored the same transfer first (to another address), or another writer
        // ended the session: judged again against what they wrote.
        const again = isLostRace(error) || error instanceof SessionChanged;
        if (!again || attempt >= REPORT_ATTEMPTS) throw error;
      }
    }
  }

  private async apply(
    tx: Tx,
    report: DepositReport,
    reporter: Reporter,
    now: number,
  ): Promise<DepositAnswer> {
    const { network } = report;
    const address = await this.deposits.lockAddressIn(
      tx,
      network,
      lookupOf(network, report.address),
    );
    if (!address) {
      throw new ApiError('NOT_FOUND', {
        message: 'The gateway never gave this deposit address.',
        field: 'address',
      });
    }
    const session = await this.sessions.findIn(tx, address.validationKey);
    if (!session) throw new Error(`Deposit address ${address.id} has no session`);
    const open = session.status === 'PENDING';
    let quote = await this.deposits.quoteIn(tx, address.validationKey);
    const before = await this.deposits.depositIn(tx, network, report.txid, report.index);
    if (before && !sameTransfer(before, report, address.id)) {
      throw ApiError.invalidParameters([
        {
          field: 'txid',
          message:
            'was reported before with another address, asset, amount or chain for this index',
        },
      ]);
    }
    let current: DepositRecord;
    if (before) {
      current = { ...before, confirmations: report.confirmations, updatedAt: now };
      if (before.confirmations !== report.confirmations) {
        await this.deposits.updateDeposit(tx, before.id, {
          confirmations: report.confirmations,
          updatedAt: now,
        });
      }
    } else {
      const transfer = { ...report, addressId: address.id };
      const flag = flagAtFirstSight(transfer, quote, !open);
      const stored: Omit<DepositRecord, 'id'> = {
        network,
        txid: report.txid,
        outputIndex: report.index,
        addressId: address.id,
        validationKey: address.validationKey,
        chainId: network === 'evm' ? (report.chainId ?? address.chainId) : null,
        asset: report.asset,
        amount: report.amount,
        confirmations: report.confirmations,
        counted: false,
        flag,
        flaggedAmount: flag === null ? null : report.amount,
        firstSeenAt: now,
        updatedAt: now,
      };
      current = { ...stored, id: await this.deposits.insertDeposit(tx, stored) };
      if (flag === null && quote && quote.seenAt === null) {
        // The quote in force when the first deposit is seen stands from then on.
        quote = { ...(await this.renewal.inForce(tx, quote, now)).quote, seenAt: now };
        await this.deposits.putQuote(tx, quote);
      }
    }
    const all = await this.deposits.depositsOfIn(tx, [address.validationKey]);
    const judged = all.map((d) => (d.id === current.id ? current : d));
    const changes = new Map<number, DepositChange>();
    let status = session.status;
    if (open && quote) {
      const settled = settlementOf(quote, judged);
      for (const d of judged) {
        const counted = mayCount(d) && isConfirmed(d, quote);
        if (counted !== d.counted) changes.set(d.id, { counted });
      }
      if (settled.paid) {
        const actor: Actor =
          'call' in reporter
            ? { kind: 'operator', id: reporter.call.operator.id, name: reporter.call.operator.name }
            : { kind: 'system' };
        const paid = await this.paidReport(tx, quote, settled.received);
        const { session: after } = await this.sessions
          .transition(
            tx,
            { validationKey: address.validationKey, report: paid },
            { callbacks: true, actor, onlyFrom: { statuses: ['PENDING'], conflict: ENDED } },
          )
          .catch((error: unknown) => {
            if (error instanceof ApiError && error.code === 'CONFLICT') throw new SessionChanged();
            throw error;
          });
        status = after.status;
        if (settled.excess > 0n) {
          const confirmed = tally(quote, judged).confirmed;
          const completing = confirmed.some((d) => d.id === current.id)
            ? current
            : confirmed[confirmed.length - 1];
          changes.set(completing.id, {
            ...changes.get(completing.id),
            flag: 'OVERPAID',
            flaggedAmount: settled.excess.toString(),
          });
        }
      }
    } else if (quote && mayCount(current)) {
      // The session ended: nothing changes it any more.
      const confirmed = isConfirmed(current, quote);
      if (current.counted && !confirmed) {
        changes.set(current.id, { counted: false });
        this.logger.error(
          { validationKey: address.validationKey.slice(0, 6), txid: current.txid, status },
          'A deposit counted in a final session left the chain (a reorganisation): check the payment',
        );
      } else if (!current.counted && confirmed && current.flag === null) {
        changes.set(current.id, { flag: flagAfterEnd(status), flaggedAmount: current.amount });
      }
    }
    for (const [id, change] of changes) {
      await this.deposits.updateDeposit(tx, id, { ...change, updatedAt: now });
    }
    // The address received something: the key's gap starts after it. Last, as it locks the
    // key's row, which every new address of the merchant's key takes too.
    if (!before) await this.keys.funded(tx, address.keyId, address.addressIndex);
    const after = { ...current, ...changes.get(current.id) };
    await this.recordChanges(tx, reporter, [
      {
        target: `${network}:${report.txid}:${report.index}`,
        changes: changesBetween(before ? audited(before) : null, audited(after)),
      },
      ...(status === session.status
        ? []
        : [
            {
              target: address.validationKey,
              changes: { status: { old: session.status, new: status } },
            },
          ]),
    ]);
    return {
      network,
      address: address.address,
      txid: after.txid,
      index: after.outputIndex,
      asset: after.asset,
      amount: after.amount,
      confirmations: after.confirmations,
      counted: after.counted,
      ...(after.flag === null ? {} : { flag: after.flag }),
      session: { status },
    };
  }

  /**
   * What the checkout's expiry does with these open sessions past their time, under their
   * addresses' locks: hold those whose deposit is confirming, fail the underpaid, expire the rest.
   */
  async atExpiry(
    tx: Tx,
    validationKeys: readonly string[],
    now: number,
  ): Promise<Map<string, ExpiryDecision>> {
    await this.deposits.lockAddressesOfIn(tx, validationKeys);
    const [quotes, deposits] = await Promise.all([
      this.deposits.quotesOfIn(tx, validationKeys),
      this.deposits.depositsOfIn(tx, validationKeys),
    ]);
    const decisions = new Map<string, ExpiryDecision>();
    for (const key of validationKeys) {
      const quote = quotes.find((q) => q.validationKey === key);
      const verdict = expiryVerdict(
        quote,
        deposits.filter((d) => d.validationKey === key),
        now,
      );
      if (verdict.kind === 'underpaid' && quote) {
        const received = formatAtomicUnits(verdict.received, quote.decimals);
        const due = formatAtomicUnits(verdict.due, quote.decimals);
        decisions.set(key, {
          kind: 'underpaid',
          errorMessage: `Underpaid: ${received} of ${due} ${quote.currencyCode} received by the time the payment expired; it is to be refunded.`,
        });
      } else {
        decisions.set(key, verdict.kind === 'underpaid' ? { kind: 'expire' } : verdict);
      }
    }
    return decisions;
  }

  /** Flags the counted deposits of sessions failed as underpaid, for a refund. */
  async flagUnderpaid(tx: Tx, validationKeys: readonly string[], now: number): Promise<void> {
    for (const deposit of await this.deposits.depositsOfIn(tx, validationKeys)) {
      if (deposit.counted && mayCount(deposit)) {
        await this.deposits.updateDeposit(tx, deposit.id, {
          flag: 'UNDERPAID',
          flaggedAmount: deposit.amount,
          updatedAt: now,
        });
      }
    }
  }

  private async paidReport(tx: Tx, quote: QuoteRecord, received: bigint) {
    const report = await this.paidReports.reportOf(tx, quote.validationKey, {
      pair: pairName(quote),
      sourceMoney: {
        amountMinor: fiatMinorOf(received, quote.price, quote.decimals),
        currency: quote.fiat,
      },
    });
    if (!report) throw new Error(`No checkout can report session ${quote.validationKey} paid`);
    return report;
  }

  private async recordChanges(tx: Tx, reporter: Reporter, records: ChangeRecord[]): Promise<void> {
    const changed = records.filter((record) => Object.keys(record.changes).length > 0);
    if ('call' in reporter) {
      await this.audit.recordMany(
        tx,
        changed.map((change) => ({ call: reporter.call, change })),
      );
      return;
    }
    for (const change of changed) await this.audit.recordSystem(tx, 'reportSandboxDeposit', change);
  }
}

/** A repeat of a stored transfer: the same address, asset, amount and chain. */
function sameTransfer(stored: DepositRecord, report: DepositReport, addressId: number): boolean {
  return (
    stored.addressId === addressId &&
    sameAsset(stored.network, stored.asset, report.asset) &&
    stored.amount === report.amount &&
    (report.chainId === undefined || stored.chainId === report.chainId)
  );
}

/** A deposit as the audit trail shows it. */
function audited(deposit: DepositRecord): Record<string, unknown> {
  return {
    validationKey: deposit.validationKey,
    asset: deposit.asset,
    amount: deposit.amount,
    confirmations: deposit.confirmations,
    counted: deposit.counted,
    flag: deposit.flag,
  };
}
