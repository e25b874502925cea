import { Inject, Injectable } from '@nestjs/common';
import Handlebars from 'handlebars';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { presentationAmount, type StoredMoney } from '../common/money.js';
import { strongEtag } from '../common/http/response.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ABANDONED_BY_USER, EXPIRED, FAILURE_REASON_CODES } from './checkout-outcomes.js';
import type { CheckoutView } from './checkout.service.js';
import { PAGE_LANGUAGES, pageLanguage, type PageMessages } from './messages.js';
import type { WebAnswer } from './web-answer.js';

/** Where the checkout's page, script and stylesheet are served, below CONTEXT_PATH. */
export const CHECKOUT_PATH = 'checkout';
export const CHECKOUT_ASSETS_PATH = `${CHECKOUT_PATH}/assets`;
/** Where integrations load the widget from: below CONTEXT_PATH, and at the host's root. */
export const WIDGET_PATH = 'widgets/sgpg.js';

/** How long browsers may keep the script and stylesheets before asking again (with an ETag). */
const ASSET_MAX_AGE_SECONDS = 300;

/** Headers every answer gets (RequestContext) that a page framed by other origins must not carry. */
const FRAMING_HEADERS = ['X-Frame-Options'];

/** How the document describes a script or stylesheet answer: cacheable, with an ETag. */
export function assetResponse(type: string, example: string) {
  return {
    status: 200,
    description: `The file; \`If-None-Match\` with its ETag answers 304 Not Modified.`,
    headers: {
      ETag: { description: 'Strong tag of the bytes.', required: true, schema: { type: 'string' } },
      'Cache-Control': {
        description: `Browsers may keep it ${ASSET_MAX_AGE_SECONDS} s.`,
        required: true,
        schema: { type: 'string' },
      },
    },
    content: { [type]: { schema: { type: 'string' }, example } },
  };
}

/** The checkout's browser files, as served. */
export type AssetName = 'checkout.js' | 'checkout.css';

function file(folder: 'views' | 'public', name: string): string {
  return readFileSync(fileURLToPath(new URL(`./${folder}/${name}`, import.meta.url)), 'utf8');
}

function staticAnswer(body: string, contentType: string, crossOrigin: boolean): WebAnswer {
  return {
    kind: 'web',
    body,
    etag: strongEtag(body),
    headers: {
      'Content-Type': contentType,
      'Cache-Control': `public, max-age=${ASSET_MAX_AGE_SECONDS}`,
      // The widget is loaded by merchants' pages, from their own origins.
      ...(crossOrigin ? { 'Cross-Origin-Resource-Policy': 'cross-origin' } : {}),
    },
  };
}

/**
 * The checkout page, rendered by Handlebars from `views/checkout.hbs` (every value is escaped by
 * the engine: nothing the merchant or customer sent is put into the HTML otherwise), and the
 * browser files of `public/`, read once and served with a strong ETag.
 */
@Injectable()
export class CheckoutPages {
  private readonly template: Handlebars.TemplateDelegate;
  private readonly base: string;
  readonly widget: WebAnswer;
  readonly assets: Record<AssetName, WebAnswer>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = config.contextPath;
    this.template = Handlebars.create().compile(file('views', 'checkout.hbs'));
    this.widget = staticAnswer(
      file('public', 'widget.js').replace("'__CHECKOUT_BASE__'", JSON.stringify(this.base)),
      'text/javascript; charset=utf-8',
      true,
    );
    this.assets = {
      'checkout.js': staticAnswer(
        file('public', 'checkout.js'),
        'text/javascript; charset=utf-8',
        false,
      ),
      'checkout.css': staticAnswer(
        file('public', 'checkout.css'),
        'text/css; charset=utf-8',
        false,
      ),
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
      chosenPair: `${currency} ${t.on} ${protocol}`,
      sandbox: view.sandbox,
      reasons: FAILURE_REASON_CODES.map((code) => ({ code, label: t.reasons[code] })),
      nonce: view.nonce ?? '',
      actions: `${this.base}/${CHECKOUT_PATH}/${encodeURIComponent(token)}`,
      assets: `${this.base}/${CHECKOUT_ASSETS_PATH}`,
      parentOrigin: allowedParent,
      outcome: view.ended?.outcome ?? '',
      status: view.ended?.status ?? 'PENDING',
      detailedStatus: view.ended?.detailedStatus ?? '',
      endedMessage: view.ended ? endedMessage(view.ended, t) : '',
    });
    const ancestors = view.frameAncestors.length > 0 ? view.frameAncestors.join(' ') : "'none'";
    return {
      kind: 'web',
      body: html,
      withoutHeaders: FRAMING_HEADERS,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': [
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "img-src 'self'",
          "connect-src 'self'",
          "form-action 'self'",
          "base-uri 'none'",
          `frame-ancestors ${ancestors}`,
        ].join('; '),
      },
    };
  }
}

/** The amount as people read it in the page's language (`€10.00`, `10,00 €`). */
export function formatAmount(money: StoredMoney, lang: string): string {
  try {
    return new Intl.NumberFormat(lang, { style: 'currency', currency: money.currency }).format(
      money.amountMinor / 100,
    );
  } catch {
    return presentationAmount(money.currency, money.amountMinor);
  }
}

function endedMessage(ended: NonNullable<CheckoutView['ended']>, t: PageMessages): string {
  switch (ended.status) {
    case 'SUCCESSFUL':
      return t.paid;
    case 'FAILED': {
      const reason = t.reasons[ended.detailedStatus as keyof PageMessages['reasons']];
      return reason ? `${t.failed} ${reason}.` : t.failed;
    }
    default:
      if (ended.detailedStatus === ABANDONED_BY_USER) return t.cancelled;
      return ended.detailedStatus === EXPIRED ? t.expired : t.notCompleted;
  }
}
