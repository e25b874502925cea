import type { PaymentStatus } from '../payment-status/payment-status.types.js';
import type { DepositNetwork } from './networks.js';
import { NATIVE_ASSET } from './settlement.js';

/**
 * The rules of deposits, as pure functions of what is stored (docs/operators.md, "Deposits"):
 * what a reported transfer is for its session, what counts, when a session is paid, underpaid
 * or overpaid, and what the expiry does with a session whose deposit is still confirming.
 */

/** Why a deposit is set apart for an operator. */
export const DEPOSIT_FLAGS = [
  'OTHER_ASSET',
  'OTHER_CHAIN',
  'LATE',
  'OVERPAID',
  'UNDERPAID',
] as const;
export type DepositFlag = (typeof DEPOSIT_FLAGS)[number];

/** Flags that keep a deposit out of its session's count for good. */
const NEVER_COUNTED: readonly DepositFlag[] = ['OTHER_ASSET', 'OTHER_CHAIN', 'LATE'];

/**
 * How long a deposit seen but not yet confirmed holds off its session's expiry, from when it was
 * first seen: a transfer with a low fee may wait in the mempool for hours; one that never
 * confirms must not keep a checkout open for ever. Past it the session expires (underpaid if
 * some deposits were confirmed) and the deposit, should it confirm later, is flagged LATE.
 */
export const CONFIRMATION_HOLD_MS = 24 * 60 * 60 * 1000;

/** A reported transfer as stored. */
export interface DepositRecord {
  id: number;
  network: DepositNetwork;
  txid: string;
  outputIndex: number;
  addressId: number;
  validationKey: string;
  chainId: number | null;
  /** The token contract, or `native`. */
  asset: string;
  /** Atomic units, a decimal integer. */
  amount: string;
  confirmations: number;
  /** It counts toward its session (see countedNow). */
  counted: boolean;
  flag: DepositFlag | null;
  /** What the flag is about, in atomic units (the excess, the amount to refund). */
  flaggedAmount: string | null;
  firstSeenAt: number;
  updatedAt: number;
}

/** The quote a deposit is judged against: its address, asset, chain, amount and confirmations. */
export interface QuoteTerms {
  addressId: number;
  network: DepositNetwork;
  chainId: number | null;
  tokenContract: string | null;
  /** Atomic units. */
  amount: string;
  confirmations: number;
}

/** A transfer as a watcher reports it. */
export interface ReportedTransfer {
  addressId: number;
  /** Absent: the chain of the quote (EVM). */
  chainId?: number;
  asset: string;
  amount: string;
  confirmations: number;
}

/** Two assets are the same: EVM contracts in any case, `native` as it is. */
export function sameAsset(network: DepositNetwork, a: string, b: string): boolean {
  return network === 'evm' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * What a transfer is for its session when first seen: null when it may count (the quoted asset,
 * on the quoted chain, to the quoted address, while the session is open); otherwise the flag
 * that sets it apart for good.
 */
export function flagAtFirstSight(
  transfer: ReportedTransfer,
  quote: QuoteTerms | undefined,
  sessionFinal: boolean,
): DepositFlag | null {
  if (!quote || quote.addressId !== transfer.addressId) return 'OTHER_ASSET';
  if (quote.network === 'evm' && (transfer.chainId ?? quote.chainId) !== quote.chainId) {
    return 'OTHER_CHAIN';
  }
  if (!sameAsset(quote.network, transfer.asset, quote.tokenContract ?? NATIVE_ASSET)) {
    return 'OTHER_ASSET';
  }
  return sessionFinal ? 'LATE' : null;
}

/** It may count toward its session: of the quoted asset and chain, seen while it was open. */
export function mayCount(deposit: Pick<DepositRecord, 'flag'>): boolean {
  return deposit.flag === null || !NEVER_COUNTED.includes(deposit.flag);
}

/** Confirmed: at least the confirmations the quote asks for (0 after a reorganisation). */
export function isConfirmed(
  deposit: Pick<DepositRecord, 'confirmations'>,
  quote: Pick<QuoteTerms, 'confirmations'>,
): boolean {
  return deposit.confirmations >= quote.confirmations;
}

/** Sum of atomic amounts. */
export function total(deposits: readonly Pick<DepositRecord, 'amount'>[]): bigint {
  return deposits.reduce((sum, d) => sum + BigInt(d.amount), 0n);
}

/** Where a session's deposits stand against its quote. */
export interface DepositTally {
  /** Deposits that may count and are confirmed. */
  confirmed: DepositRecord[];
  /** Deposits that may count and are not confirmed yet (0 confirmations included). */
  confirming: DepositRecord[];
  /** The confirmed amount, atomic units. */
  received: bigint;
  /** The quote's amount. */
  due: bigint;
}

export function tally(quote: QuoteTerms, deposits: readonly DepositRecord[]): DepositTally {
  const eligible = deposits.filter(mayCount);
  const confirmed = eligible.filter((d) => isConfirmed(d, quote));
  const confirming = eligible.filter((d) => !isConfirmed(d, quote));
  return { confirmed, confirming, received: total(confirmed), due: BigInt(quote.amount) };
}

/**
 * What an open session's deposits decide now: `paid` once the confirmed deposits reach the quote
 * (with the excess, if any: overpaid), otherwise nothing yet.
 */
export function settlementOf(
  quote: QuoteTerms,
  deposits: readonly DepositRecord[],
): { paid: false } | { paid: true; received: bigint; excess: bigint } {
  const { received, due } = tally(quote, deposits);
  return received >= due ? { paid: true, received, excess: received - due } : { paid: false };
}

/**
 * What the expiry does with an open session past its time: `hold` while a deposit that may count
 * is confirming (for CONFIRMATION_HOLD_MS from when it was first seen); `underpaid` when
 * confirmed deposits arrived but fall short; `expire` when nothing counts.
 */
export type ExpiryVerdict =
  { kind: 'hold' } | { kind: 'underpaid'; received: bigint; due: bigint } | { kind: 'expire' };

export function expiryVerdict(
  quote: QuoteTerms | undefined,
  deposits: readonly DepositRecord[],
  now: number,
): ExpiryVerdict {
  if (!quote) return { kind: 'expire' };
  const { confirming, received, due } = tally(quote, deposits);
  if (confirming.some((d) => now - d.firstSeenAt < CONFIRMATION_HOLD_MS)) return { kind: 'hold' };
  if (received > 0n && received < due) return { kind: 'underpaid', received, due };
  return { kind: 'expire' };
}

/**
 * What a deposit that may count becomes once its session is final and it was not counted in
 * its settlement: when it confirms, an extra payment to a paid session (OVERPAID), or one that
 * came too late for an ended one (LATE).
 */
export function flagAfterEnd(status: PaymentStatus): DepositFlag {
  return status === 'SUCCESSFUL' ? 'OVERPAID' : 'LATE';
}

/** Where a payment stands for the page. */
export type ProgressState = 'waiting' | 'seen' | 'underpaid' | 'paid';

export interface Progress {
  state: ProgressState;
  /** While `seen`: the confirmations of the least confirmed deposit still confirming. */
  confirmations?: number;
  received: bigint;
  remaining: bigint;
}

/** The page's progress: waiting → seen (n of N) → paid; underpaid shows what arrived and is left. */
export function progressOf(
  quote: QuoteTerms,
  deposits: readonly DepositRecord[],
  status: PaymentStatus,
): Progress {
  const { confirming, received, due } = tally(quote, deposits);
  const counted = status === 'PENDING' ? received : total(deposits.filter((d) => d.counted));
  const remaining = counted >= due ? 0n : due - counted;
  if (status === 'SUCCESSFUL') return { state: 'paid', received: counted, remaining };
  if (status === 'PENDING' && confirming.length > 0) {
    const confirmations = Math.min(...confirming.map((d) => d.confirmations));
    return { state: 'seen', confirmations, received: counted, remaining };
  }
  if (counted > 0n) return { state: 'underpaid', received: counted, remaining };
  return { state: 'waiting', received: 0n, remaining };
}
