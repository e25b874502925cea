import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import type { StoredMoney } from '../common/money.js';
import type { Tx } from '../database/transactions.js';
import type { PaymentStatus } from '../payment-status/payment-status.types.js';
import { formatAtomicUnits } from './crypto-amount.js';
import { progressOf, type Progress } from './deposit-rules.js';
import { DepositKeyService } from './deposit-keys.service.js';
import {
  DepositAddressRecord,
  DepositRepository,
  QuotedAsset,
  QuoteRecord,
} from './deposits.repository.js';
import { NETWORK_RULES, type DepositNetwork } from './networks.js';
import { paymentUri } from './payment-uri.js';
import { QuoteRenewal } from './quote-renewal.js';
import { RateService } from './rates.service.js';
import type { Settlement } from './settlement.js';

/** A pair of the catalog as the checkout may offer it. */
export interface CheckoutPair {
  currencyCode: string;
  protocol: string;
  settlement: Settlement | null;
}

/** A pair chosen for a session, to be paid on chain. */
export interface PaymentChoice {
  validationKey: string;
  merchantId: string;
  /** The session's money: the fiat of the rate, and what the quote pays for. */
  money: StoredMoney;
  currencyCode: string;
  protocol: string;
  settlement: Settlement;
}

/** An amount of the quoted asset: a decimal of whole units, and atomic units. */
export interface AssetAmount {
  /** `10.712346` */
  amount: string;
  /** `10712346` */
  amountAtomic: string;
}

/**
 * Where the payment stands on chain: `waiting` for a deposit; `seen` while deposits of the
 * quoted asset confirm (`confirmations` of `confirmationsRequired`, the least confirmed one);
 * `underpaid` when the confirmed deposits fall short and none is confirming; `paid`.
 */
export interface PaymentProgress {
  state: 'waiting' | 'seen' | 'underpaid' | 'paid';
  /** While `seen`: the confirmations of the least confirmed deposit still confirming. */
  confirmations?: number;
  /** Confirmed deposits of the quoted asset counted so far. */
  received: AssetAmount;
  /** What is left to pay (0 once paid). */
  remaining: AssetAmount;
}

/**
 * What the checkout page shows once a pair is chosen: what to send, where, until when the quote
 * holds, and how the payment is going (docs/checkout.md, "The payment step").
 */
export interface PaymentInstructions extends AssetAmount {
  /** `USDT/TRC20`: the pair quoted, as the page names its choice. */
  pair: string;
  /** The asset's code, such as `USDT`. */
  assetCode: string;
  network: DepositNetwork;
  /** `Bitcoin`, `EVM`, `TRON` */
  networkLabel: string;
  /** EVM only. */
  chainId?: number;
  /** A token's contract; absent for the network's own coin. */
  tokenContract?: string;
  decimals: number;
  /** Where to send it. */
  address: string;
  /** BIP21 / EIP-681 / the TRON address: what the QR code holds. */
  paymentUri: string;
  /** The price quoted: one unit of the asset in `fiat`. */
  price: string;
  fiat: string;
  /** When the quote ends (ISO 8601): the page counts down to it. */
  quoteExpiresAt: string;
  /**
   * The quote ended and no fresh rate could renew it: the page asks to wait or choose another
   * pair (a deposit already sent still counts at this quote).
   */
  quoteExpired: boolean;
  /** A deposit was seen: the quote stands for good, whatever its time. */
  quoteLocked: boolean;
  confirmationsRequired: number;
  progress: PaymentProgress;
}

/**
 * The checkout's payment step (docs/checkout.md): which pairs can be paid on chain now, the
 * address and quote given when one is chosen, and the instructions the page shows. Runs inside
 * the checkout's transactions.
 */
@Injectable()
export class CheckoutPayments {
  constructor(
    private readonly keys: DepositKeyService,
    private readonly rates: RateService,
    private readonly deposits: DepositRepository,
    private readonly renewal: QuoteRenewal,
  ) {}

  /**
   * The pairs of `pairs` a session of the merchant in `fiat` can pay on chain at `now`: with a
   * settlement, a merchant key for its network, and a fresh rate in the session's currency.
   * As `CURRENCY/PROTOCOL`.
   */
  async payable(
    merchantId: string,
    fiat: string,
    pairs: readonly CheckoutPair[],
    now = Date.now(),
  ): Promise<Set<string>> {
    if (!pairs.some((pair) => pair.settlement)) return new Set();
    const [networks, prices] = await Promise.all([
      this.keys.networksOf(merchantId),
      this.rates.pricesIn(fiat, now),
    ]);
    return new Set(
      pairs
        .filter(
          ({ currencyCode, settlement }) =>
            settlement && networks.has(settlement.network) && prices.has(currencyCode),
        )
        .map(pairName),
    );
  }

  /**
   * The session pays with this pair: the first time a pair of its network is chosen, the
   * merchant's next address of that network is given to it; the quote in force becomes this
   * pair's, at the rate in force. Once a deposit was seen, only the same pair may be chosen.
   */
  async choose(tx: Tx, choice: PaymentChoice, now = Date.now()): Promise<void> {
    const { validationKey, settlement } = choice;
    const current = await this.deposits.quoteIn(tx, validationKey);
    if (current?.seenAt != null && pairName(current) !== pairName(choice)) {
      throw new ApiError('CONFLICT', {
        message: `A payment in ${current.currencyCode} was already seen for this checkout: it can no longer change its pair.`,
      });
    }
    const price = await this.rates.priceIn(tx, choice.currencyCode, choice.money.currency, now);
    if (price === undefined) throw notPayable();
    const asset = assetOf(choice);
    let address = await this.deposits.addressOfIn(tx, validationKey, settlement.network);
    if (address) await this.deposits.setAddressAsset(tx, address.id, asset);
    else address = await this.assign(tx, choice, now);
    if (current?.seenAt != null) return; // the same pair: the quote seen stands
    const terms = { validationKey, addressId: address.id, network: settlement.network, asset };
    await this.deposits.putQuote(
      tx,
      this.renewal.fresh({ ...terms, money: choice.money }, price, now),
    );
  }

  /**
   * The payment step of a session whose pair was chosen, or undefined when none was paid on
   * chain. A quote past its time is renewed for the same address at the rate in force, unless a
   * deposit was seen (then it stands).
   */
  async instructions(
    tx: Tx,
    validationKey: string,
    status: PaymentStatus,
    now = Date.now(),
  ): Promise<PaymentInstructions | undefined> {
    const stored = await this.deposits.quoteIn(tx, validationKey);
    if (!stored) return undefined;
    const address = await this.deposits.addressByIdIn(tx, stored.addressId);
    if (!address) return undefined;
    // Only an open payment's quote is renewed: an ended one shows what it was.
    const { quote, renewed, expired } =
      status === 'PENDING'
        ? await this.renewal.inForce(tx, stored, now)
        : { quote: stored, renewed: false, expired: false };
    if (renewed) await this.deposits.putQuote(tx, quote);
    const deposits = await this.deposits.depositsOfIn(tx, [validationKey]);
    return instructionsOf(quote, address, expired, progressOf(quote, deposits, status));
  }

  /** Gives the session the merchant's next address on the choice's network. */
  private async assign(tx: Tx, choice: PaymentChoice, now: number): Promise<DepositAddressRecord> {
    const { network } = choice.settlement;
    const key = await this.keys.currentIn(tx, choice.merchantId, network);
    if (!key) throw notPayable();
    const { index, address } = await this.keys.nextAddress(tx, key);
    const record: Omit<DepositAddressRecord, 'id'> = {
      validationKey: choice.validationKey,
      merchantId: choice.merchantId,
      network,
      keyId: key.id,
      addressIndex: index,
      address,
      lookup: lookupOf(network, address),
      ...assetOf(choice),
      assignedAt: now,
    };
    return { ...record, id: await this.deposits.insertAddress(tx, record) };
  }
}

/** `CURRENCY/PROTOCOL`: how the checkout names a pair. */
export function pairName(pair: { currencyCode: string; protocol: string }): string {
  return `${pair.currencyCode}/${pair.protocol}`;
}

/** How reports are matched on an address: EVM addresses in any case, the others as written. */
export function lookupOf(network: DepositNetwork, address: string): string {
  return network === 'evm' ? address.toLowerCase() : address;
}

function assetOf(
  choice: Pick<PaymentChoice, 'currencyCode' | 'protocol' | 'settlement'>,
): QuotedAsset {
  const { settlement } = choice;
  return {
    currencyCode: choice.currencyCode,
    protocol: choice.protocol,
    chainId: settlement.chainId ?? null,
    tokenContract: settlement.tokenContract ?? null,
    decimals: settlement.decimals,
    confirmations: settlement.confirmations,
  };
}

function notPayable(): ApiError {
  return new ApiError('CONFLICT', {
    message:
      'This pair cannot be paid now (no price or no deposit address for it); choose another.',
  });
}

function amountOf(atomic: bigint, decimals: number): AssetAmount {
  return { amount: formatAtomicUnits(atomic, decimals), amountAtomic: atomic.toString() };
}

function instructionsOf(
  quote: QuoteRecord,
  address: DepositAddressRecord,
  expired: boolean,
  progress: Progress,
): PaymentInstructions {
  const amount = BigInt(quote.amount);
  return {
    pair: pairName(quote),
    assetCode: quote.currencyCode,
    network: quote.network,
    networkLabel: NETWORK_RULES[quote.network].label,
    ...(quote.chainId === null ? {} : { chainId: quote.chainId }),
    ...(quote.tokenContract === null ? {} : { tokenContract: quote.tokenContract }),
    decimals: quote.decimals,
    ...amountOf(amount, quote.decimals),
    address: address.address,
    paymentUri: paymentUri({
      network: quote.network,
      address: address.address,
      amount,
      decimals: quote.decimals,
      ...(quote.chainId === null ? {} : { chainId: quote.chainId }),
      ...(quote.tokenContract === null ? {} : { tokenContract: quote.tokenContract }),
    }),
    price: quote.price,
    fiat: quote.fiat,
    quoteExpiresAt: new Date(quote.expiresAt).toISOString(),
    quoteExpired: expired,
    quoteLocked: quote.seenAt !== null,
    confirmationsRequired: quote.confirmations,
    progress: {
      state: progress.state,
      ...(progress.confirmations === undefined ? {} : { confirmations: progress.confirmations }),
      received: amountOf(progress.received, quote.decimals),
      remaining: amountOf(progress.remaining, quote.decimals),
    },
  };
}
