import { Injectable } from '@nestjs/common';
import type { StoredMoney } from '../common/money.js';
import type { Tx } from '../database/transactions.js';
import type { PaymentReportDto } from '../payment-status/dto/payment-report.dto.js';

/** A session paid on chain: the pair it was paid with, and what arrived, in the session's money. */
export interface OnChainPayment {
  /** `USDT/TRC20`: the payment method. */
  pair: string;
  /** The crypto received, valued at the quote's price (see fiatMinorOf). */
  sourceMoney: StoredMoney;
}

/**
 * Makes the SUCCESSFUL report of a session paid on chain, inside the caller's transaction:
 * undefined for a session it knows nothing of.
 */
export type PaidReportMaker = (
  tx: Tx,
  validationKey: string,
  payment: OnChainPayment,
) => Promise<PaymentReportDto | undefined>;

/**
 * Who knows what a paid session's payment response holds besides its money (the checkout, from
 * its init-iframe request: references, customer, callback URLs) registers here, so that a
 * deposit settles a session without this feature reading the checkout's data.
 */
@Injectable()
export class PaidSessionReports {
  private maker?: PaidReportMaker;

  register(maker: PaidReportMaker): void {
    this.maker = maker;
  }

  async reportOf(
    tx: Tx,
    validationKey: string,
    payment: OnChainPayment,
  ): Promise<PaymentReportDto | undefined> {
    if (!this.maker) throw new Error('No checkout registered the reports of paid sessions');
    return this.maker(tx, validationKey, payment);
  }
}
