import { Inject, Injectable } from '@nestjs/common';
import Handlebars from 'handlebars';
import { presentationAmount, type StoredMoney } from '../common/money.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { qrCodeSvg } from '../deposits/qr-code.js';
import { ABANDONED_BY_USER, EXPIRED, FAILURE_REASON_CODES } from './checkout-outcomes.js';
import type { PaymentInstructions } from '../deposits/checkout-payments.service.js';
import { UNDERPAID } from '../deposits/deposits.service.js';
import type { CheckoutView } from './checkout.service.js';
import { fillIn, PAGE_LANGUAGES, pageLanguage, type PageMessages } from './messages.js';
import {
  SCRIPT_TYPE,
  STYLESHEET_TYPE,
  pageAnswer,
  pageFile,
  staticAnswer,
  type WebAnswer,
} from './web-answer.js';

/** Where the checkout's page, script and stylesheet are served, below CONTEXT_PATH. */
export const CHECKOUT_PATH = 'checkout';
export const CHECKOUT_ASSETS_PATH = `${CHECKOUT_PATH}/assets`;
/** Where integrations load the widget from: below CONTEXT_PATH, and at the host's root. */
export const WIDGET_PATH = 'widgets/sgpg.js';

/**
 * What the widget is told when the page cannot show a payment: an unknown token, or a spent one
 * (its session ended; the page loaded again says how it ended, for the shopper). The page that
 * saw the payment end tells the widget the outcome itself, before it shows the ended page.
 */
export const UNAVAILABLE = 'UNAVAILABLE';

/** The QR code's media type. */
export const QR_CODE_TYPE = 'image/svg+xml';

/** The checkout's browser files, as served. */
export type AssetName = 'checkout.js' | 'checkout.css';

const file = (folder: 'views' | 'public', name: string) => pageFile(import.meta.url, folder, name);

/**
 * The checkout page, rendered by Handlebars from `views/checkout.hbs` (every value is escaped by
 * the engine: nothing the merchant or customer sent is put into the HTML otherwise), and the
 * browser files of `public/`, read once and served with a strong ETag.
 */
@Injectable()
export class CheckoutPages {
  private readonly template: Handlebars.TemplateDelegate;
  private readonly unavailableTemplate: Handlebars.TemplateDelegate;
  private readonly base: string;
  readonly widget: WebAnswer;
  readonly assets: Record<AssetName, WebAnswer>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = config.contextPath;
    const handlebars = Handlebars.create();
    this.template = handlebars.compile(file('views', 'checkout.hbs'));
    this.unavailableTemplate = handlebars.compile(file('views', 'unavailable.hbs'));
    this.widget = staticAnswer(
      file('public', 'widget.js').replace("'__CHECKOUT_BASE__'", JSON.stringify(this.base)),
      SCRIPT_TYPE,
      true,
    );
    this.assets = {
      'checkout.js': staticAnswer(file('public', 'checkout.js'), SCRIPT_TYPE),
      'checkout.css': staticAnswer(file('public', 'checkout.css'), STYLESHEET_TYPE),
    };
  }

  /**
   * The QR code of a payment URI: an SVG drawn by the service (src/deposits/qr-code.ts), never
   * cached, under a policy that lets it load nothing.
   */
  async qrCode(paymentUri: string): Promise<WebAnswer> {
    return {
      kind: 'web',
      body: await qrCodeSvg(paymentUri),
      headers: {
        'Content-Type': QR_CODE_TYPE,
        'Cache-Control': 'no-store',
        'Content-Security-Policy': "default-src 'none'",
      },
    };
  }

  /**
   * The page for `token`: framed only by the session's allowed origins (`frame-ancestors`), its
   * messages sent only to `parentOrigin` when that is one of them.
   */
  page(view: CheckoutView, token: string, parentOrigin: string | undefined): WebAnswer {
    const lang = pageLanguage(view.languagePreference);
    const t = PAGE_LANGUAGES[lang];
    const allowedParent =
      parentOrigin !== undefined && view.frameAncestors.includes(parentOrigin) ? parentOrigin : '';
    const [currency, protocol] = (view.chosenPair ?? '/').split('/');
    const html = this.template({
      lang,
      t,
      merchantName: view.merchantName,
      amount: formatAmount(view.money, lang),
      description: view.description,
      stage: view.stage,
      isChoose: view.stage === 'choose',
      isChosen: view.stage === 'chosen',
      isExpired: view.stage === 'expired',
      isEnded: view.stage === 'ended',
      pairs: view.pairs,
      noPairs: view.detailsErased ? t.detailsErased : t.noPairs,
      chosenPair: `${currency} ${t.on} ${protocol}`,
      payment: view.payment,
      step: view.payment ? paymentStep(view.payment, t, Date.now()) : undefined,
      qrCode: `${this.base}/${CHECKOUT_PATH}/${encodeURIComponent(token)}/qr.svg`,
      sandbox: view.sandbox,
      reasons: FAILURE_REASON_CODES.map((code) => ({ code, label: t.reasons[code] })),
      nonce: view.nonce ?? '',
      actions: `${this.base}/${CHECKOUT_PATH}/${encodeURIComponent(token)}`,
      assets: `${this.base}/${CHECKOUT_ASSETS_PATH}`,
      parentOrigin: allowedParent,
      // A spent token: the widget of a page loaded once the payment ended learns only that.
      outcome: view.ended ? 'fail' : '',
      status: view.ended ? 'NOT_COMPLETED' : 'PENDING',
      detailedStatus: view.ended ? UNAVAILABLE : '',
      endedMessage: view.ended ? endedMessage(view.ended, t) : '',
    });
    return pageAnswer(html, { frameAncestors: view.frameAncestors });
  }

  /**
   * The page of a token no checkout has (never issued, or mistyped), for a browser: it says so,
   * and tells the widget that framed it (`parentOrigin`, the only origin allowed to frame this
   * page, which holds nothing of any payment) that the payment is unavailable. 404.
   */
  unavailable(parentOrigin: string | undefined): WebAnswer {
    const t = PAGE_LANGUAGES.en;
    const origin = webOrigin(parentOrigin);
    const html = this.unavailableTemplate({
      lang: 'en',
      t,
      assets: `${this.base}/${CHECKOUT_ASSETS_PATH}`,
      parentOrigin: origin ?? '',
      detailedStatus: UNAVAILABLE,
    });
    return { ...pageAnswer(html, { frameAncestors: origin ? [origin] : [] }), status: 404 };
  }
}

/** `value` when it is an http(s) origin as browsers write one (`https://shop.example:8443`). */
function webOrigin(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The payment step's texts as the server renders them (the page's script keeps them up to date
 * from the same messages): the network warning, the quote's end, and the progress.
 */
export function paymentStep(payment: PaymentInstructions, t: PageMessages, now: number) {
  const quoteEnds = Date.parse(payment.quoteExpiresAt);
  return {
    warning: fillIn(t.networkWarning, {
      asset: payment.assetCode,
      network: payment.networkLabel,
    }),
    quoteUntil: `${new Date(quoteEnds).toISOString().slice(11, 16)} UTC`,
    quoteSeconds: Math.max(0, Math.floor((quoteEnds - now) / 1000)),
    quoteNote: payment.quoteLocked ? t.quoteLocked : payment.quoteExpired ? t.quoteExpired : '',
    progress: progressText(payment, t),
  };
}

/** Where the payment stands on chain, in words: waiting, seen (n of N), underpaid, paid. */
export function progressText(payment: PaymentInstructions, t: PageMessages): string {
  const { progress } = payment;
  const values = {
    n: progress.confirmations ?? 0,
    required: payment.confirmationsRequired,
    received: progress.received.amount,
    remaining: progress.remaining.amount,
    asset: payment.assetCode,
  };
  switch (progress.state) {
    case 'waiting':
      return t.progressWaiting;
    case 'seen':
      return fillIn(t.progressSeen, values);
    case 'underpaid':
      return fillIn(t.progressUnderpaid, values);
    case 'paid':
      return t.progressPaid;
  }
}

/**
 * The amount as people read it in the page's language (`€10.00`, `10,00 €`), with the currency's
 * usual decimals, but never fewer than the amount has: amounts are stored in hundredths whatever
 * the currency, so `JPY 0.49` is shown `¥0.49`, not rounded to `¥0`.
 */
export function formatAmount(money: StoredMoney, lang: string): string {
  try {
    const options = { style: 'currency', currency: money.currency } as const;
    let format = new Intl.NumberFormat(lang, options);
    const usual = format.resolvedOptions().maximumFractionDigits ?? 2;
    if (money.amountMinor % 100 !== 0 && usual < 2) {
      format = new Intl.NumberFormat(lang, { ...options, minimumFractionDigits: 2 });
    }
    return format.format(money.amountMinor / 100);
  } catch {
    return presentationAmount(money.currency, money.amountMinor);
  }
}

function endedMessage(ended: NonNullable<CheckoutView['ended']>, t: PageMessages): string {
  switch (ended.status) {
    case 'SUCCESSFUL':
      return t.paid;
    case 'FAILED': {
      if (ended.detailedStatus === UNDERPAID) return `${t.failed} ${t.underpaid}.`;
      const reason = t.reasons[ended.detailedStatus as keyof PageMessages['reasons']];
      return reason ? `${t.failed} ${reason}.` : t.failed;
    }
    default:
      if (ended.detailedStatus === ABANDONED_BY_USER) return t.cancelled;
      return ended.detailedStatus === EXPIRED ? t.expired : t.notCompleted;
  }
}
