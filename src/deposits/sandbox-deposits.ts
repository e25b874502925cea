import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import type { PaymentInstructions } from './checkout-payments.service.js';
import { DepositService, type DepositAnswer, type DepositReport } from './deposits.service.js';
import { NATIVE_ASSET } from './settlement.js';

/** What the sandbox's tester sends: the quoted amount, half of it, or a tenth more. */
export const SANDBOX_DEPOSIT_KINDS = ['full', 'under', 'over'] as const;
export type SandboxDepositKind = (typeof SANDBOX_DEPOSIT_KINDS)[number];

/** One more confirmation every this many milliseconds, until the pair's number. */
const SANDBOX_CONFIRMATION_MS = 1000;

/**
 * The sandbox's deposit buttons: a made-up transfer to the checkout's address, reported through
 * the same deposit path as a watcher's (DepositService.report), first unconfirmed, then with one
 * more confirmation each second until the pair's number. The confirmations rise in this process
 * only: a restart stops them (the sandbox runs one process).
 */
@Injectable()
export class SandboxDeposits implements OnApplicationShutdown {
  private readonly logger = new Logger('Deposits');
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly deposits: DepositService) {}

  /** Sends the transfer: its first report's answer; the later ones follow by themselves. */
  async send(payment: PaymentInstructions, kind: SandboxDepositKind): Promise<DepositAnswer> {
    const due = BigInt(payment.amountAtomic);
    const amount = amountOf(kind, due);
    if (amount <= 0n) {
      throw new ApiError('CONFLICT', { message: 'This amount is too small to underpay.' });
    }
    const hex = randomBytes(32).toString('hex');
    const report: DepositReport = {
      network: payment.network,
      ...(payment.chainId === undefined ? {} : { chainId: payment.chainId }),
      address: payment.address,
      txid: payment.network === 'evm' ? `0x${hex}` : hex,
      index: 0,
      asset: payment.tokenContract ?? NATIVE_ASSET,
      amount: amount.toString(),
      confirmations: 0,
    };
    const first = await this.deposits.report(report, { sandbox: true });
    this.confirm(report, 1, payment.confirmationsRequired);
    return first;
  }

  private confirm(report: DepositReport, confirmations: number, required: number): void {
    if (confirmations > required) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.deposits.report({ ...report, confirmations }, { sandbox: true }).then(
        () => this.confirm(report, confirmations + 1, required),
        (error: unknown) =>
          this.logger.warn({ err: String(error) }, 'A sandbox deposit stopped confirming'),
      );
    }, SANDBOX_CONFIRMATION_MS);
    this.timers.add(timer);
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

function amountOf(kind: SandboxDepositKind, due: bigint): bigint {
  switch (kind) {
    case 'full':
      return due;
    case 'under':
      return due / 2n;
    case 'over':
      return due + (due / 10n > 0n ? due / 10n : 1n);
  }
}
