import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CatalogService } from '../catalog/catalog.service.js';
import type { Settlement } from '../deposits/settlement.js';
import { ApiError } from '../common/errors/api-error.js';
import { toMinorUnits, type StoredMoney } from '../common/money.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Transactions, type Tx } from '../database/transactions.js';
import {
  CheckoutPayments,
  pairName,
  type PaymentInstructions,
} from '../deposits/checkout-payments.service.js';
import { DepositService, UNDERPAID } from '../deposits/deposits.service.js';
import { PaidSessionReports } from '../deposits/paid-session-reports.js';
import { SandboxDeposits, type SandboxDepositKind } from '../deposits/sandbox-deposits.js';
import { originOf } from '../merchants/checkout-origins.js';
import { DEMO_MERCHANT_ID } from '../merchants/merchant-id.js';
import { MerchantService } from '../merchants/merchant.service.js';
import type { Actor } from '../payment-status/actor.js';
import type { PaymentReportDto } from '../payment-status/dto/payment-report.dto.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import { PersonalDataHolders } from '../payment-status/personal-data-holders.js';
import type { SessionRecord } from '../payment-status/payment-session.repository.js';
import { isFinal } from '../payment-status/payment-status.types.js';
import {
  ABANDONED_BY_USER,
  EXPIRED,
  FAILURE_REASONS,
  type FailureReason,
  type WidgetOutcome,
  widgetOutcomeOf,
} from './checkout-outcomes.js';
import { AccountNumbers } from './account-numbers.js';
import { CheckoutRefusals } from './checkout-refusals.js';
import {
  isNonceShaped,
  isTokenShaped,
  newCheckoutToken,
  newPageNonce,
  secretHash,
} from './checkout-secrets.js';
import {
  CheckoutRecord,
  CheckoutRepository,
  CheckoutRequest,
  PERSONAL_CHECKOUT_FIELDS,
  TokenCheckout,
} from './checkout.repository.js';
import type { InitIframeDto } from './dto/init-iframe.dto.js';

/** Checkouts expired, or erased, per transaction of the background job. */
export const CHECKOUT_BATCH = 200;

/** How soon the expiry looks again at a session held open by a deposit still confirming. */
const HELD_RECHECK_MS = 60_000;

/** Pairs the page offers at most (the catalog's largest page). */
const MAX_PAIRS = 100;

/** Where a checkout stands, as its page shows it. */
export type CheckoutStage = 'choose' | 'chosen' | 'expired' | 'ended';

/** A pair the page offers. */
export interface OfferedPair {
  currencyCode: string;
  currencyName: string;
  protocol: string;
  /**
   * It can be paid on chain now: the page will show an amount and an address once it is chosen.
   * Always true in production, where only such pairs are offered; in the sandbox the others are
   * offered too, for the outcome buttons alone.
   */
  payable: boolean;
}

/** What the page shows: never the customer's personal data. */
export interface CheckoutView {
  validationKey: string;
  merchantName: string;
  money: StoredMoney;
  description: string;
  languagePreference: string | null;
  stage: CheckoutStage;
  sandbox: boolean;
  pairs: OfferedPair[];
  /** The customer and address were erased: no pairs can be offered (no country). */
  detailsErased: boolean;
  /** `CURRENCY/PROTOCOL` once chosen. */
  chosenPair: string | null;
  /**
   * Once a pair paid on chain is chosen: what to send where, the quote's time and the payment's
   * progress (PaymentInstructions, src/deposits/checkout-payments.service.ts). Its QR code is
   * served at `GET /checkout/{token}/qr.svg`.
   */
  payment?: PaymentInstructions;
  /** The page's single-use nonce, for the next action; only while the checkout is open. */
  nonce?: string;
  /** How the payment ended (stage `ended`). */
  ended?: {
    status: SessionRecord['status'];
    detailedStatus: string | null;
    outcome: WidgetOutcome;
  };
  /** Origins that may frame the page: those of the callback URLs and the merchant's own list. */
  frameAncestors: string[];
}

/** What the page's script polls: where the checkout stands, and how it ended. */
export interface CheckoutState {
  status: SessionRecord['status'];
  stage: CheckoutStage;
  outcome?: WidgetOutcome;
  /** Once ended, with `outcome`: the detail the widget's callback is given. */
  detailedStatus?: string;
  /**
   * The payment step while the payment is open, once a pair paid on chain is chosen (as
   * CheckoutView's): its progress, and the quote, which may be renewed.
   */
  payment?: PaymentInstructions;
}

/** A tester's choice of outcome in the sandbox. */
export type SandboxOutcome = { outcome: 'paid' } | { outcome: 'failed'; reason: FailureReason };

const KEY_IN_USE = 'This validationKey is already used by another payment session.';
const ENDED = 'This payment has ended; the page can no longer change it.';

/**
 * The checkout (docs/checkout.md): init-iframe creates a PENDING session for the merchant
 * with a token; the page the token opens offers the catalog's pairs for the customer's country
 * and ends the session through the state machine (paid or failed in the sandbox, cancelled
 * anywhere), each outcome with its callback in the same transaction; a background job expires
 * checkouts past their tokens' lifetime. Every state-changing page action needs the page's
 * single-use nonce.
 */
@Injectable()
export class CheckoutService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checkouts: CheckoutRepository,
    private readonly sessions: PaymentSessionService,
    private readonly merchants: MerchantService,
    private readonly catalog: CatalogService,
    private readonly transactions: Transactions,
    private readonly refusals: CheckoutRefusals,
    private readonly accounts: AccountNumbers,
    private readonly payments: CheckoutPayments,
    private readonly deposits: DepositService,
    private readonly sandboxDeposits: SandboxDeposits,
    holders: PersonalDataHolders,
    paidReports: PaidSessionReports,
  ) {
    holders.register((tx, validationKey) => this.eraseIn(tx, validationKey, Date.now()));
    paidReports.register(async (tx, validationKey, payment) => {
      const checkout = await this.checkouts.findIn(tx, validationKey);
      return checkout && paidReport(checkout, payment.pair, payment.sourceMoney);
    });
  }

  /**
   * Creates the merchant's PENDING session with its callback URLs and a token, in one
   * transaction. The same request again, while the session is not final, answers the same
   * session with a new token (a NOT_COMPLETED one is opened again, PENDING); any other use of
   * the key is a 409 that tells nothing about whose it is.
   */
  async initIframe(
    merchantId: string | undefined,
    input: InitIframeDto,
    now = Date.now(),
  ): Promise<{ traceId: string; initializationToken: string }> {
    const merchant = merchantId ?? DEMO_MERCHANT_ID;
    const request = normalisedRequest(input, this.accounts);
    const key = input.validationKey;
    const token = newCheckoutToken();
    const expiresAt = now + this.config.checkout.tokenTtlSeconds * 1000;
    const actor: Actor = { kind: 'merchant', id: merchant };
    await this.sessions.transact(async (tx) => {
      // The key is claimed first: of identical requests racing (on several instances), one
      // inserts the checkout and the others wait for its transaction, then read what it wrote
      // and answer as a repeat.
      const claimed = await this.checkouts.insert(tx, {
        validationKey: key,
        merchantId: merchant,
        request,
        expiresAt,
        state: 'open',
        chosenPair: null,
        pageNonceHash: null,
        personalDataErasedAt: null,
      });
      const session = await this.sessions.findIn(tx, key);
      if (claimed) {
        // A session without a checkout: the operator's.
        if (session) throw keyInUse();
        if (!(await this.merchants.checkoutProfile(tx, merchant))) throw noMerchant();
        const report = {
          merchantId: merchant,
          status: 'PENDING',
          returnUrl: request.returnUrl,
          ...(request.errorUrl === null ? {} : { errorUrl: request.errorUrl }),
        } as PaymentReportDto;
        await this.sessions.transition(
          tx,
          { validationKey: key, report },
          { callbacks: true, actor, onlyFrom: { statuses: [null], conflict: KEY_IN_USE } },
        );
      } else {
        const existing = await this.checkouts.findIn(tx, key);
        if (
          !session ||
          !existing ||
          session.merchantId !== merchant ||
          existing.merchantId !== merchant ||
          JSON.stringify(existing.request) !== JSON.stringify(request)
        ) {
          throw keyInUse();
        }
        if (isFinal(session.status)) {
          throw new ApiError('CONFLICT', {
            message: `The payment session of this validationKey is ${session.status}, a final state; start a new payment with a new validationKey.`,
            field: 'validationKey',
          });
        }
        if (session.status === 'NOT_COMPLETED') {
          await this.sessions.transition(
            tx,
            {
              validationKey: key,
              report: { merchantId: merchant, status: 'PENDING' } as PaymentReportDto,
            },
            {
              callbacks: true,
              actor,
              onlyFrom: { statuses: ['NOT_COMPLETED'], conflict: KEY_IN_USE },
            },
          );
          await this.checkouts.setState(tx, key, 'open');
        }
      }
      await this.checkouts.addToken(tx, secretHash(token), key, expiresAt);
    });
    return { traceId: input.traceId, initializationToken: token };
  }

  /**
   * The page a token opens: while the checkout is open, with a new single-use nonce (the page's
   * previous nonce stops working); once the token expired or the payment ended, saying so.
   */
  page(token: string, address: string, now = Date.now()): Promise<CheckoutView> {
    return this.guarded(address, async () => {
      const found = await this.found(token);
      const { checkout } = found;
      const view = await this.transactions.run(async (tx): Promise<CheckoutView> => {
        const session = await this.requireSession(tx, checkout.validationKey);
        const profile = await this.merchants.checkoutProfile(tx, checkout.merchantId);
        const payment =
          checkout.chosenPair === null
            ? undefined
            : await this.paymentOf(tx, checkout.validationKey, checkout.chosenPair, session, now);
        const stage = stageOf(found, session, now, payment);
        const nonce = stage === 'choose' || stage === 'chosen' ? newPageNonce() : undefined;
        if (nonce) {
          await this.checkouts.replaceNonce(tx, checkout.validationKey, null, secretHash(nonce));
        }
        return {
          validationKey: checkout.validationKey,
          merchantName: profile?.name ?? checkout.merchantId,
          money: checkout.request.money,
          description: checkout.request.description,
          languagePreference: checkout.request.languagePreference,
          stage,
          sandbox: this.config.checkout.sandbox,
          pairs: [],
          detailsErased: checkout.personalDataErasedAt !== null,
          chosenPair: checkout.chosenPair,
          ...(payment ? { payment } : {}),
          ...(nonce ? { nonce } : {}),
          ...(stage === 'ended' ? { ended: endedOf(session) } : {}),
          frameAncestors: frameAncestors(session, profile?.checkoutOrigins ?? []),
        };
      });
      if (view.stage === 'choose') {
        const pairs = await this.pairsFor(checkout.merchantId, checkout.request, now);
        view.pairs = pairs.map(({ settlement: _settlement, ...pair }) => pair);
      }
      return view;
    });
  }

  /** Where the checkout stands, for the page's script: no nonce, no change. */
  state(token: string, address: string, now = Date.now()): Promise<CheckoutState> {
    return this.guarded(address, async () => {
      const found = await this.found(token);
      const { validationKey, chosenPair } = found.checkout;
      if (chosenPair === null) {
        const session = await this.sessions.findListed(validationKey);
        if (!session) throw unknownToken();
        return stateOf(found, session, now);
      }
      // A pair chosen: its payment step, whose quote may be renewed, in a transaction.
      return this.transactions.run(async (tx) => {
        const session = await this.requireSession(tx, validationKey);
        const payment = await this.paymentOf(tx, validationKey, chosenPair, session, now);
        return stateOf(found, session, now, payment);
      });
    });
  }

  /** The customer chooses a pair of the catalog offered for their country. */
  choose(
    token: string,
    nonce: unknown,
    pair: { currencyCode: string; protocol: string },
    address: string,
    now = Date.now(),
  ): Promise<CheckoutState> {
    return this.guarded(address, async () => {
      const { checkout } = await this.found(token);
      const offered = await this.pairsFor(checkout.merchantId, checkout.request, now);
      const chosen = offered.find(
        (p) => p.currencyCode === pair.currencyCode && p.protocol === pair.protocol,
      );
      if (!chosen) {
        throw ApiError.invalidParameters([
          { field: 'currencyCode', message: 'is not offered for this payment' },
        ]);
      }
      return this.transactions.run(async (tx) => {
        const current = await this.actionable(tx, token, nonce, now);
        const key = current.checkout.validationKey;
        await this.checkouts.setChosenPair(tx, key, pairName(chosen));
        if (chosen.payable && chosen.settlement) {
          await this.payments.choose(
            tx,
            {
              validationKey: key,
              merchantId: current.checkout.merchantId,
              money: current.checkout.request.money,
              currencyCode: chosen.currencyCode,
              protocol: chosen.protocol,
              settlement: chosen.settlement,
            },
            now,
          );
        }
        return { status: 'PENDING', stage: 'chosen' } satisfies CheckoutState;
      });
    });
  }

  /** The sandbox's tester ends the payment: paid, or failed with a reason. */
  decide(
    token: string,
    nonce: unknown,
    decision: SandboxOutcome,
    address: string,
    now = Date.now(),
  ): Promise<CheckoutState> {
    return this.guarded(address, async () => {
      this.sandboxOnly('The payment processor reports the outcome; a page chooses one');
      await this.found(token);
      return this.end(token, nonce, now, (checkout) => {
        if (checkout.chosenPair === null) {
          throw new ApiError('CONFLICT', { message: 'Choose a pair before the outcome.' });
        }
        return decision.outcome === 'paid'
          ? paidReport(checkout, checkout.chosenPair)
          : ({
              merchantId: checkout.merchantId,
              status: 'FAILED',
              errorMessage: FAILURE_REASONS[decision.reason],
              detailedStatus: decision.reason,
            } as PaymentReportDto);
      });
    });
  }

  /**
   * The sandbox's tester pays on chain: a full, an under- or an over-payment of the quote sent to
   * the checkout's address and reported through the deposit path a watcher's report takes, its
   * confirmations rising each second (SandboxDeposits). Spends the page's nonce.
   */
  sandboxDeposit(
    token: string,
    nonce: unknown,
    kind: SandboxDepositKind,
    address: string,
    now = Date.now(),
  ): Promise<CheckoutState> {
    return this.guarded(address, async () => {
      this.sandboxOnly('Deposits are reported by a chain watcher; a page sends one');
      await this.found(token);
      const payment = await this.transactions.run(async (tx) => {
        const { checkout } = await this.actionable(tx, token, nonce, now);
        const { validationKey, chosenPair } = checkout;
        const shown =
          chosenPair === null
            ? undefined
            : await this.paymentOf(tx, validationKey, chosenPair, { status: 'PENDING' }, now);
        if (!shown) {
          throw new ApiError('CONFLICT', {
            message: 'Choose a pair paid on chain before sending a deposit.',
          });
        }
        return shown;
      });
      const sent = await this.sandboxDeposits.send(payment, kind);
      return this.state(token, address).then((state) => ({
        ...state,
        status: sent.session.status,
      }));
    });
  }

  /**
   * The payment URI of the checkout's payment step, for its QR code: while the payment is open
   * and a pair paid on chain is chosen; NOT_FOUND otherwise. Changes nothing but a quote past its
   * time (renewed, as the page would).
   */
  paymentUri(token: string, address: string, now = Date.now()): Promise<string> {
    return this.guarded(address, async () => {
      const { checkout } = await this.found(token);
      const { validationKey, chosenPair } = checkout;
      const payment =
        chosenPair === null
          ? undefined
          : await this.transactions.run(async (tx) => {
              const session = await this.requireSession(tx, validationKey);
              if (session.status !== 'PENDING') return undefined;
              return this.paymentOf(tx, validationKey, chosenPair, session, now);
            });
      if (!payment) {
        throw new ApiError('NOT_FOUND', {
          message: 'This checkout has no payment on chain to show.',
          field: 'token',
        });
      }
      return payment.paymentUri;
    });
  }

  /** The customer cancels: NOT_COMPLETED (ABANDONED_BY_USER). */
  cancel(token: string, nonce: unknown, address: string, now = Date.now()): Promise<CheckoutState> {
    return this.guarded(address, async () => {
      await this.found(token);
      return this.end(token, nonce, now, (checkout) => ({
        merchantId: checkout.merchantId,
        status: 'NOT_COMPLETED',
        detailedStatus: ABANDONED_BY_USER,
      }));
    });
  }

  /**
   * Expires the open checkouts whose last token has expired, up to CHECKOUT_BATCH in one
   * transaction: each PENDING session becomes NOT_COMPLETED (EXPIRED) with its callback, all of
   * them in one transition of the state machine. Claimed under a lock another instance skips,
   * and applied only from PENDING, so each expires once. Returns how many checkouts it closed.
   */
  expireDue(now = Date.now()): Promise<number> {
    return this.sessions.transact(async (tx) => {
      const keys = await this.checkouts.dueForExpiry(tx, now, CHECKOUT_BATCH);
      if (keys.length === 0) return 0;
      // Judged under the locks of the sessions' deposit addresses, before their states are read:
      // a deposit report under way is seen whole, or not at all.
      const decisions = await this.deposits.atExpiry(tx, keys, now);
      const sessions = await this.sessions.findManyIn(tx, keys);
      const held: string[] = [];
      const reports: { validationKey: string; report: PaymentReportDto }[] = [];
      for (const session of sessions.values()) {
        if (session.status !== 'PENDING') continue;
        const decision = decisions.get(session.validationKey) ?? { kind: 'expire' };
        if (decision.kind === 'hold') {
          held.push(session.validationKey);
          continue;
        }
        reports.push({
          validationKey: session.validationKey,
          report: (decision.kind === 'underpaid'
            ? {
                merchantId: session.merchantId,
                status: 'FAILED',
                detailedStatus: UNDERPAID,
                errorMessage: decision.errorMessage,
              }
            : {
                merchantId: session.merchantId,
                status: 'NOT_COMPLETED',
                detailedStatus: EXPIRED,
              }) as PaymentReportDto,
        });
      }
      // A session another writer ended meanwhile is refused (onlyFrom) and stays as it is.
      const results = await this.sessions.transition(tx, reports, {
        callbacks: true,
        actor: { kind: 'system' },
        onlyFrom: { statuses: ['PENDING'], conflict: ENDED },
      });
      const underpaid = reports
        .filter(({ report }, i) => report.status === 'FAILED' && !(results[i] instanceof ApiError))
        .map(({ validationKey }) => validationKey);
      await this.deposits.flagUnderpaid(tx, underpaid, now);
      for (const key of keys) {
        // A deposit still confirming holds the session open: it is looked at again later.
        if (held.includes(key)) await this.checkouts.postpone(tx, key, now + HELD_RECHECK_MS);
        else await this.checkouts.setState(tx, key, 'ended');
      }
      return keys.length - held.length;
    });
  }

  /**
   * Erases the customer and address of checkouts whose last token expired at `before` or
   * earlier (PERSONAL_DATA_RETENTION_DAYS ago), up to CHECKOUT_BATCH in one transaction: what
   * an abandoned checkout holds is not kept longer than what a final session holds.
   */
  eraseStale(before: number, now = Date.now()): Promise<number> {
    return this.transactions.run(async (tx) => {
      const keys = await this.checkouts.dueForErasure(tx, before, CHECKOUT_BATCH);
      for (const key of keys) await this.eraseIn(tx, key, now);
      return keys.length;
    });
  }

  /** The checkout of a session as the operator sees it; undefined when it has none. */
  async detailOf(validationKey: string): Promise<CheckoutRecord | undefined> {
    return this.transactions.run((tx) => this.checkouts.findIn(tx, validationKey));
  }

  /** Erases a checkout's customer, address and account; the dotted names of those it held. */
  private async eraseIn(tx: Tx, validationKey: string, now: number): Promise<string[]> {
    const checkout = await this.checkouts.findIn(tx, validationKey);
    if (!checkout || checkout.personalDataErasedAt !== null) return [];
    const held = PERSONAL_CHECKOUT_FIELDS.filter((field) => checkout.request[field] != null);
    const request: CheckoutRequest = { ...checkout.request };
    for (const field of PERSONAL_CHECKOUT_FIELDS) request[field] = null;
    request.destinationAccountDigest = null;
    await this.checkouts.storeErasure(tx, validationKey, request, now);
    return held.map((field) => `checkout.${field}`);
  }

  /**
   * Ends the checkout's session with the report `reportOf` makes: the nonce is spent and the
   * session moves through the state machine (only from PENDING) with its callback, all in one
   * transaction, again on a lost race.
   */
  private end(
    token: string,
    nonce: unknown,
    now: number,
    reportOf: (checkout: CheckoutRecord) => PaymentReportDto,
  ): Promise<CheckoutState> {
    return this.sessions.transact(async (tx) => {
      const { checkout } = await this.actionable(tx, token, nonce, now);
      const report = reportOf(checkout);
      const { session } = await this.sessions.transition(
        tx,
        { validationKey: checkout.validationKey, report },
        {
          callbacks: true,
          actor: { kind: 'customer' },
          onlyFrom: { statuses: ['PENDING'], conflict: ENDED },
        },
      );
      await this.checkouts.setState(tx, checkout.validationKey, 'ended');
      return {
        status: session.status,
        stage: 'ended',
        outcome: widgetOutcomeOf(session.status, session.detailedStatus),
        ...(session.detailedStatus ? { detailedStatus: session.detailedStatus } : {}),
      } satisfies CheckoutState;
    });
  }

  /**
   * The checkout a page action may change, inside its transaction: the token opens it and has
   * not expired, its session is PENDING, and the nonce is the page's current one, which this
   * spends.
   */
  private async actionable(
    tx: Tx,
    token: string,
    nonce: unknown,
    now: number,
  ): Promise<TokenCheckout> {
    const found = await this.checkouts.findByTokenIn(tx, secretHash(token));
    if (!found) throw unknownToken();
    const session = await this.requireSession(tx, found.checkout.validationKey);
    if (session.status !== 'PENDING') throw new ApiError('CONFLICT', { message: ENDED });
    if (found.tokenExpiresAt <= now) {
      throw new ApiError('CONFLICT', { message: 'This payment has expired.' });
    }
    const spent =
      isNonceShaped(nonce) &&
      found.checkout.pageNonceHash !== null &&
      (await this.checkouts.replaceNonce(
        tx,
        found.checkout.validationKey,
        secretHash(nonce),
        secretHash(newPageNonce()),
      ));
    if (!spent) {
      throw new ApiError('FORBIDDEN', {
        message: "This action needs the page's current nonce; reload the page.",
        field: 'nonce',
      });
    }
    return found;
  }

  /** FORBIDDEN outside the sandbox: `what` happens there only. */
  private sandboxOnly(what: string): void {
    if (!this.config.checkout.sandbox) {
      throw new ApiError('FORBIDDEN', {
        message: `${what} only in the sandbox (CHECKOUT_SANDBOX=true).`,
      });
    }
  }

  private async found(token: string): Promise<TokenCheckout> {
    const found = isTokenShaped(token)
      ? await this.checkouts.findByToken(secretHash(token))
      : undefined;
    if (!found) throw unknownToken();
    return found;
  }

  private async requireSession(tx: Tx, validationKey: string): Promise<SessionRecord> {
    const session = await this.sessions.findIn(tx, validationKey);
    if (!session) throw unknownToken();
    return session;
  }

  /**
   * The pairs the page offers: the catalog's enabled for the customer's country that can be paid
   * on chain now (a settlement, the merchant's key for its network, a fresh rate in the session's
   * currency); in the sandbox every enabled pair, each saying whether it can be.
   */
  private async pairsFor(
    merchantId: string,
    request: CheckoutRequest,
    now: number,
  ): Promise<(OfferedPair & { settlement: Settlement | null })[]> {
    if (!request.address) return [];
    const pairs = await this.catalog.enabledIn(request.address.countryCode, MAX_PAIRS);
    const payable = await this.payments.payable(merchantId, request.money.currency, pairs, now);
    return pairs
      .map(({ currencyCode, currencyName, protocol, settlement }) => ({
        currencyCode,
        currencyName,
        protocol,
        payable: payable.has(pairName({ currencyCode, protocol })),
        settlement,
      }))
      .filter((pair) => pair.payable || this.config.checkout.sandbox);
  }

  /** The payment step of the chosen pair, when it is paid on chain. */
  private async paymentOf(
    tx: Tx,
    validationKey: string,
    chosenPair: string,
    session: Pick<SessionRecord, 'status'>,
    now: number,
  ): Promise<PaymentInstructions | undefined> {
    const payment = await this.payments.instructions(tx, validationKey, session.status, now);
    return payment?.pair === chosenPair ? payment : undefined;
  }

  /** Refused requests (4xx) count against the address's limit; a blocked address gets 429. */
  private async guarded<T>(address: string, work: () => Promise<T>): Promise<T> {
    const blocked = await this.refusals.refusal(address);
    if (blocked) throw blocked;
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
        throw await this.refusals.refused(address, error);
      }
      throw error;
    }
  }
}

/**
 * The stored form of an init-iframe request; the same request always gives the same JSON. The
 * account number is kept masked, beside a keyed digest of it (AccountNumbers).
 */
export function normalisedRequest(input: InitIframeDto, accounts: AccountNumbers): CheckoutRequest {
  const amountMinor = toMinorUnits(input.money.amount);
  if (amountMinor === undefined) throw new Error('money.amount was not validated');
  const { client, address } = input;
  return {
    money: { amountMinor, currency: input.money.currency },
    client: {
      firstName: client.firstName,
      lastName: client.lastName,
      phone: client.phone,
      dialingCode: client.dialingCode,
      nationality: client.nationality,
      emailAddress: client.emailAddress,
      dob: client.dob,
    },
    address: {
      addressLine1: address.addressLine1,
      countryCode: address.countryCode,
      city: address.city,
    },
    clientReference: input.clientReference,
    traceId: input.traceId,
    description: input.description,
    ...destinationAccount(accounts, input.destinationAccountNumber),
    brandId: input.brandId,
    returnUrl: input.returnUrl,
    errorUrl: input.errorUrl ?? null,
    languagePreference: input.languagePreference ?? null,
  };
}

function destinationAccount(
  accounts: AccountNumbers,
  number: string,
): Pick<CheckoutRequest, 'destinationAccountNumber' | 'destinationAccountDigest'> {
  const { masked, digest } = accounts.stored(number);
  return { destinationAccountNumber: masked, destinationAccountDigest: digest };
}

/** A decimal text of minor units: 1050 → `10.50`. */
function decimal(amountMinor: number): string {
  return `${Math.trunc(amountMinor / 100)}.${String(amountMinor % 100).padStart(2, '0')}`;
}

/**
 * SUCCESSFUL, made from the request: the money asked for (requested, sent and received; the
 * sandbox charges no fee), the merchant's references, the customer and the chosen pair, and a
 * new transactionReference. Paid on chain, `sourceMoney` is what arrived: the crypto received,
 * valued at the quote's price in the session's currency (docs/decisions.md).
 */
function paidReport(
  checkout: CheckoutRecord,
  pair: string,
  received?: StoredMoney,
): PaymentReportDto {
  const request = checkout.request;
  const money = { amount: decimal(request.money.amountMinor), currency: request.money.currency };
  const client = request.client;
  return {
    merchantId: checkout.merchantId,
    status: 'SUCCESSFUL',
    paymentResponse: {
      sourceMoney: received
        ? { amount: decimal(received.amountMinor), currency: received.currency }
        : money,
      destinationMoney: money,
      totalFees: { amount: '0.00', currency: request.money.currency },
      money,
      requestedMoney: money,
      traceId: request.traceId,
      description: request.description,
      clientReference: request.clientReference,
      responseCode: '00',
      transactionReference: randomUUID(),
      paymentType: 'PAYMENT',
      paymentMethod: pair,
      ...(request.destinationAccountNumber === null
        ? {}
        : { accountNumber: request.destinationAccountNumber }),
      ...(client
        ? {
            customerDob: client.dob,
            customerFirstName: client.firstName,
            customerLastName: client.lastName,
            senderEmailAddress: client.emailAddress,
          }
        : {}),
      ...(request.address ? { customerCountryCode: request.address.countryCode } : {}),
    },
  } as PaymentReportDto;
}

function stateOf(
  found: TokenCheckout,
  session: Pick<SessionRecord, 'status' | 'detailedStatus'>,
  now: number,
  payment?: PaymentInstructions,
): CheckoutState {
  const outcome = widgetOutcomeOf(session.status, session.detailedStatus);
  return {
    status: session.status,
    stage: stageOf(found, session, now, payment),
    ...(outcome ? { outcome } : {}),
    ...(outcome && session.detailedStatus ? { detailedStatus: session.detailedStatus } : {}),
    ...(payment && session.status === 'PENDING' ? { payment } : {}),
  };
}

/**
 * Where the page stands. A token past its time shows the payment expired, unless a deposit was
 * seen and is confirming: the session is held open, and the page keeps showing its progress.
 */
function stageOf(
  found: TokenCheckout,
  session: Pick<SessionRecord, 'status'>,
  now: number,
  payment?: PaymentInstructions,
): CheckoutStage {
  if (session.status !== 'PENDING') return 'ended';
  if (found.tokenExpiresAt <= now && payment?.progress.state !== 'seen') return 'expired';
  return found.checkout.chosenPair === null ? 'choose' : 'chosen';
}

function endedOf(session: SessionRecord): CheckoutView['ended'] {
  return {
    status: session.status,
    detailedStatus: session.detailedStatus,
    outcome: widgetOutcomeOf(session.status, session.detailedStatus) ?? 'fail',
  };
}

/** The origins that may frame a session's page, without repeats, in a stable order. */
export function frameAncestors(
  session: Pick<SessionRecord, 'returnUrl' | 'errorUrl'>,
  checkoutOrigins: string[],
): string[] {
  const origins = [originOf(session.returnUrl), originOf(session.errorUrl), ...checkoutOrigins];
  return [...new Set(origins.filter((o): o is string => o !== undefined))];
}

function unknownToken(): ApiError {
  return new ApiError('NOT_FOUND', {
    message: 'No payment is open with this link.',
    field: 'token',
  });
}

function keyInUse(): ApiError {
  return new ApiError('CONFLICT', { message: KEY_IN_USE, field: 'validationKey' });
}

function noMerchant(): ApiError {
  return ApiError.invalidParameters([
    {
      field: 'key',
      message: `must belong to a merchant; with AUTH_MODE=none the merchant "${DEMO_MERCHANT_ID}" must exist`,
    },
  ]);
}
