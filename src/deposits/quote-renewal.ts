import { Inject, Injectable } from '@nestjs/common';
import type { StoredMoney } from '../common/money.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { Tx } from '../database/transactions.js';
import type { QuotedAsset, QuoteRecord } from './deposits.repository.js';
import type { DepositNetwork } from './networks.js';
import { quotedAmount, quoteStands } from './quote-rules.js';
import { RateService } from './rates.service.js';

/** What a quote is made for: a session's money, paid in an asset to one of its addresses. */
export interface QuoteTermsOf {
  validationKey: string;
  addressId: number;
  network: DepositNetwork;
  asset: QuotedAsset;
  money: StoredMoney;
}

/**
 * Quotes: made at the rate in force, held QUOTE_TTL_SECONDS, then renewed for the same address
 * at the rate in force then, unless a deposit was seen for them (then they stand for good).
 */
@Injectable()
export class QuoteRenewal {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rates: RateService,
  ) {}

  /** A new quote at `price`, from `now`. */
  fresh(terms: QuoteTermsOf, price: string, now: number): QuoteRecord {
    return {
      validationKey: terms.validationKey,
      addressId: terms.addressId,
      network: terms.network,
      ...terms.asset,
      fiat: terms.money.currency,
      moneyMinor: terms.money.amountMinor,
      price,
      amount: quotedAmount(terms.money, price, terms.asset.decimals).toString(),
      quotedAt: now,
      expiresAt: now + this.config.deposits.quoteTtlSeconds * 1000,
      seenAt: null,
    };
  }

  /**
   * The quote in force at `now`: the stored one while it stands; past its time, a new one at the
   * rate in force (`renewed`, for the caller to store), or the old one when there is no fresh
   * rate (`expired`).
   */
  async inForce(
    tx: Tx,
    quote: QuoteRecord,
    now: number,
  ): Promise<{ quote: QuoteRecord; renewed: boolean; expired: boolean }> {
    if (quoteStands(quote, now)) return { quote, renewed: false, expired: false };
    const price = await this.rates.priceIn(tx, quote.currencyCode, quote.fiat, now);
    if (price === undefined) return { quote, renewed: false, expired: true };
    const { validationKey, addressId, network, fiat, moneyMinor } = quote;
    const asset: QuotedAsset = {
      currencyCode: quote.currencyCode,
      protocol: quote.protocol,
      chainId: quote.chainId,
      tokenContract: quote.tokenContract,
      decimals: quote.decimals,
      confirmations: quote.confirmations,
    };
    const money = { amountMinor: moneyMinor, currency: fiat };
    const terms = { validationKey, addressId, network, asset, money };
    return { quote: this.fresh(terms, price, now), renewed: true, expired: false };
  }
}
