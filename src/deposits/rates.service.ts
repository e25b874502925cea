import { Inject, Injectable } from '@nestjs/common';
import type { OperatorCall } from '../access/operator-call.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { RateDto } from './dto/rate.dto.js';
import { ageSeconds, isStale } from './quote-rules.js';
import { RateRecord, RateRepository } from './rates.repository.js';
import { SANDBOX_RATES } from './sandbox-rates.js';

/**
 * The assets' rates (docs/operators.md, "Rates"): put by an operator or a price feed with the
 * role `catalog`, each the price of one unit in one fiat currency. A rate older than
 * RATE_MAX_AGE_SECONDS is stale and quotes nothing. In the sandbox, an asset without a fresh
 * rate quotes at its demo price (src/deposits/sandbox-rates.ts).
 */
@Injectable()
export class RateService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rates: RateRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
  ) {}

  async put(
    currencyCode: string,
    fiat: string,
    price: string,
    call?: OperatorCall,
    now = Date.now(),
  ): Promise<RateDto> {
    const rate = { currencyCode, fiat, price, updatedAt: now };
    await this.transactions.run(async (tx) => {
      const before = await this.rates.findIn(tx, currencyCode, fiat);
      await this.rates.put(tx, rate);
      await this.audit.record(tx, call, {
        target: `${currencyCode}/${fiat}`,
        changes: { price: { old: before?.price ?? null, new: price } },
      });
    });
    return this.viewOf(rate, now);
  }

  async list(now = Date.now()): Promise<RateDto[]> {
    return (await this.rates.list()).map((rate) => this.viewOf(rate, now));
  }

  /** The assets with a price to quote in `fiat` at `now`: fresh rates (and the sandbox's). */
  async pricesIn(fiat: string, now: number): Promise<Map<string, string>> {
    const prices = new Map<string, string>();
    if (this.config.checkout.sandbox) {
      for (const [asset, byFiat] of Object.entries(SANDBOX_RATES)) {
        if (byFiat[fiat] !== undefined) prices.set(asset, byFiat[fiat]);
      }
    }
    for (const rate of await this.rates.inFiat(fiat)) {
      if (!this.stale(rate, now)) prices.set(rate.currencyCode, rate.price);
    }
    return prices;
  }

  /** The price to quote an asset in `fiat` at `now`, inside the caller's transaction. */
  async priceIn(
    tx: Tx,
    currencyCode: string,
    fiat: string,
    now: number,
  ): Promise<string | undefined> {
    const rate = await this.rates.findIn(tx, currencyCode, fiat);
    if (rate && !this.stale(rate, now)) return rate.price;
    return this.config.checkout.sandbox ? SANDBOX_RATES[currencyCode]?.[fiat] : undefined;
  }

  private stale(rate: RateRecord, now: number): boolean {
    return isStale(rate, now, this.config.deposits.rateMaxAgeSeconds);
  }

  private viewOf(rate: RateRecord, now: number): RateDto {
    return {
      currencyCode: rate.currencyCode,
      fiat: rate.fiat,
      price: rate.price,
      updatedAt: new Date(rate.updatedAt).toISOString(),
      ageSeconds: ageSeconds(rate, now),
      stale: this.stale(rate, now),
    };
  }
}
