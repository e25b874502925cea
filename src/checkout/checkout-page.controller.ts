import { Controller, Header, Headers, HttpCode, UseInterceptors } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { ValidBody, ValidParams, ValidQuery } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import type { ErrorCode } from '../common/errors/error-catalog.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { CHECKOUT_REFUSALS_LIMIT, CHECKOUT_REFUSALS_WINDOW_SECONDS } from './checkout-refusals.js';
import { CHECKOUT_PATH, CheckoutPages, QR_CODE_TYPE } from './checkout-pages.js';
import { CheckoutService, type CheckoutState } from './checkout.service.js';
import { ClientAddress } from './client-address.js';
import {
  CheckoutPageQuery,
  CheckoutStateEnvelopeDto,
  CheckoutTokenParams,
  ChoosePairDto,
  PageActionDto,
  SandboxDepositDto,
  SandboxOutcomeDto,
} from './dto/checkout-page.dto.js';
import { assetResponse, htmlResponse, type WebAnswer } from './web-answer.js';
import { WebAnswerInterceptor } from './web-answer.interceptor.js';

const TOKEN_PARAM = {
  name: 'token',
  description: 'The initializationToken init-iframe answered.',
  example: 'ct_3q2-7wJd0mZkq8yF5c1n2rVb4oXh6LtA9sWeUiOpPzQ',
};

const REFUSALS_NOTE =
  `Also past ${CHECKOUT_REFUSALS_LIMIT} refused checkout requests from this address in ` +
  `${CHECKOUT_REFUSALS_WINDOW_SECONDS} s: every checkout request from it is refused until the window ends.`;

const PAGE_ERRORS: ErrorCode[] = ['NOT_FOUND', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'];
const ACTION_ERRORS: ErrorCode[] = [
  'INVALID_PARAMETER',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
];
const ACTION_NOTES: Partial<Record<ErrorCode, string>> = {
  FORBIDDEN: "The page's nonce is missing, not the current one, or already spent.",
  NOT_FOUND: 'No checkout has this token.',
  CONFLICT: 'The payment has ended, or the token has expired.',
  RATE_LIMITED: REFUSALS_NOTE,
};

/** The page's answer to an action: where the checkout now stands. */
const ACTION_RESPONSE = {
  status: 200,
  type: CheckoutStateEnvelopeDto,
  description: 'Done; the page reloads to show its new stage.',
};

@ApiTags('Checkout')
@Controller()
@UseInterceptors(WebAnswerInterceptor)
export class CheckoutPageController {
  constructor(
    private readonly checkouts: CheckoutService,
    private readonly pages: CheckoutPages,
  ) {}

  @Endpoint({
    method: 'GET',
    path: `${CHECKOUT_PATH}/assets/checkout.js`,
    operationId: 'getCheckoutPageScript',
    summary: "The checkout page's script (JavaScript)",
    description:
      "Sends the page's actions with its nonce, follows the payment while it is open, and tells the widget how it ended (postMessage to the origin the page was opened for).",
    access: 'public',
    responses: [assetResponse('text/javascript', '(function () { … })();')],
    errors: [],
  })
  script(): WebAnswer {
    return this.pages.assets['checkout.js'];
  }

  @Endpoint({
    method: 'GET',
    path: `${CHECKOUT_PATH}/assets/checkout.css`,
    operationId: 'getCheckoutPageStylesheet',
    summary: "The checkout page's stylesheet (CSS)",
    description: 'Readable from 320 px wide, text contrast at least 7:1, a visible focus ring.',
    access: 'public',
    responses: [assetResponse('text/css', 'main { max-width: 32rem; }')],
    errors: [],
  })
  stylesheet(): WebAnswer {
    return this.pages.assets['checkout.css'];
  }

  @Endpoint({
    method: 'GET',
    path: `${CHECKOUT_PATH}/:token`,
    operationId: 'getCheckoutPage',
    summary: 'The checkout page of a token (HTML)',
    description:
      'What the widget shows in its iframe: the merchant, the amount, the description, and the ' +
      "catalog's pairs enabled for the customer's country; in the sandbox (CHECKOUT_SANDBOX=true) " +
      'the outcome to choose, in production a wait for the processor. No personal data. ' +
      '`Content-Security-Policy` has no inline script and `frame-ancestors` names the origins of ' +
      "the session's callback URLs and the merchant's `checkoutOrigins`. Once the token expired " +
      'or the payment ended the page says so. Once a pair paid on chain is chosen: the amount, ' +
      'the address, their copy buttons, the QR code, the network warning, the countdown of the ' +
      'quote and the progress of the transfer.',
    access: 'public',
    params: [TOKEN_PARAM],
    responses: [htmlResponse('The page.')],
    errors: PAGE_ERRORS,
    errorNotes: {
      NOT_FOUND:
        'No checkout has this token. A browser (`Accept: text/html`) gets a small HTML page ' +
        'saying so, which tells the widget the payment is unavailable; other clients the JSON ' +
        'envelope.',
      RATE_LIMITED: REFUSALS_NOTE,
    },
  })
  async page(
    @ValidParams() params: CheckoutTokenParams,
    @ValidQuery() query: CheckoutPageQuery,
    @ClientAddress() address: string,
    @Headers('accept') accept: string | undefined,
  ): Promise<WebAnswer> {
    try {
      const view = await this.checkouts.page(params.token, address);
      return this.pages.page(view, params.token, query.origin);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'NOT_FOUND' && acceptsHtml(accept)) {
        return this.pages.unavailable(query.origin);
      }
      throw error;
    }
  }

  @Endpoint({
    method: 'GET',
    path: `${CHECKOUT_PATH}/:token/qr.svg`,
    operationId: 'getCheckoutQrCode',
    summary: "The QR code of the checkout's payment (SVG)",
    description:
      'The payment URI of the payment step (BIP21, EIP-681, or the TRON address) as a QR code a wallet scans, drawn by the service: the page shows it as an image, without script. Never cached. Once a pair paid on chain is chosen, while the payment is open.',
    access: 'public',
    params: [TOKEN_PARAM],
    responses: [
      {
        status: 200,
        description: 'The QR code.',
        headers: {
          'Cache-Control': {
            description: '`no-store`: the quote, and so the code, may change.',
            required: true,
            schema: { type: 'string' },
          },
        },
        content: {
          [QR_CODE_TYPE]: {
            schema: { type: 'string' },
            example: '<svg xmlns="http://www.w3.org/2000/svg" …</svg>',
          },
        },
      },
    ],
    errors: PAGE_ERRORS,
    errorNotes: {
      NOT_FOUND: 'No checkout has this token, or it has no payment on chain open.',
      RATE_LIMITED: REFUSALS_NOTE,
    },
  })
  async qrCode(
    @ValidParams() params: CheckoutTokenParams,
    @ClientAddress() address: string,
  ): Promise<WebAnswer> {
    return this.pages.qrCode(await this.checkouts.paymentUri(params.token, address));
  }

  @Header('Cache-Control', 'no-store')
  @Endpoint({
    method: 'GET',
    path: `${CHECKOUT_PATH}/:token/status`,
    operationId: 'getCheckoutState',
    summary: 'Where a checkout stands (polled by its page)',
    description:
      "The session's status, the page's stage and, once the payment ended, the widget callback it calls. Changes nothing.",
    access: 'public',
    envelope: { kind: 'payload' },
    params: [TOKEN_PARAM],
    responses: [{ status: 200, type: CheckoutStateEnvelopeDto }],
    errors: PAGE_ERRORS,
    errorNotes: { NOT_FOUND: 'No checkout has this token.', RATE_LIMITED: REFUSALS_NOTE },
  })
  state(
    @ValidParams() params: CheckoutTokenParams,
    @ClientAddress() address: string,
  ): Promise<CheckoutState> {
    return this.checkouts.state(params.token, address);
  }

  @HttpCode(200)
  @Endpoint({
    method: 'POST',
    path: `${CHECKOUT_PATH}/:token/pair`,
    operationId: 'chooseCheckoutPair',
    summary: 'The customer chooses a pair (page action)',
    description:
      "One of the pairs the page offers (enabled in the catalog for the customer's country). Needs the page's nonce, which it spends.",
    access: 'public',
    envelope: { kind: 'payload' },
    params: [TOKEN_PARAM],
    body: true,
    requestBody: {
      type: ChoosePairDto,
      examples: {
        pair: {
          summary: 'USDT on TRC20',
          value: {
            nonce: 'Jx3mT0f8pY2kQ9wV5bR7cL1dN4hS6aZe',
            currencyCode: 'USDT',
            protocol: 'TRC20',
          },
        },
      },
    },
    responses: [ACTION_RESPONSE],
    errors: ACTION_ERRORS,
    errorNotes: {
      ...ACTION_NOTES,
      INVALID_PARAMETER: 'Also when the page does not offer this pair.',
    },
  })
  choose(
    @ValidParams() params: CheckoutTokenParams,
    @ValidBody() input: ChoosePairDto,
    @ClientAddress() address: string,
  ): Promise<CheckoutState> {
    return this.checkouts.choose(params.token, input.nonce, input, address);
  }

  @HttpCode(200)
  @Endpoint({
    method: 'POST',
    path: `${CHECKOUT_PATH}/:token/outcome`,
    operationId: 'decideCheckoutOutcome',
    summary: "The sandbox's tester chooses the outcome (page action)",
    description:
      'Paid: SUCCESSFUL with a payment response made from the init-iframe request and a new ' +
      'transactionReference. Failed: FAILED with the reason. Through the state machine, with ' +
      'the callback. Only with CHECKOUT_SANDBOX=true (403 otherwise).',
    access: 'public',
    envelope: { kind: 'payload' },
    params: [TOKEN_PARAM],
    body: true,
    requestBody: {
      type: SandboxOutcomeDto,
      examples: {
        paid: {
          summary: 'Paid',
          value: { nonce: 'Jx3mT0f8pY2kQ9wV5bR7cL1dN4hS6aZe', outcome: 'paid' },
        },
        failed: {
          summary: 'Failed',
          value: {
            nonce: 'Jx3mT0f8pY2kQ9wV5bR7cL1dN4hS6aZe',
            outcome: 'failed',
            reason: 'INSUFFICIENT_FUNDS',
          },
        },
      },
    },
    responses: [ACTION_RESPONSE],
    errors: ACTION_ERRORS,
    errorNotes: {
      ...ACTION_NOTES,
      FORBIDDEN: `${ACTION_NOTES.FORBIDDEN} Also outside the sandbox.`,
      CONFLICT: `${ACTION_NOTES.CONFLICT} Also before a pair was chosen.`,
    },
  })
  decide(
    @ValidParams() params: CheckoutTokenParams,
    @ValidBody() input: SandboxOutcomeDto,
    @ClientAddress() address: string,
  ): Promise<CheckoutState> {
    const decision =
      input.outcome === 'paid'
        ? ({ outcome: 'paid' } as const)
        : ({ outcome: 'failed', reason: input.reason ?? 'INSUFFICIENT_FUNDS' } as const);
    return this.checkouts.decide(params.token, input.nonce, decision, address);
  }

  @HttpCode(200)
  @Endpoint({
    method: 'POST',
    path: `${CHECKOUT_PATH}/:token/deposit`,
    operationId: 'sendSandboxDeposit',
    summary: "The sandbox's tester sends a deposit on chain (page action)",
    description:
      'A made-up transfer of the quoted asset to the checkout’s deposit address: the full ' +
      'amount, half of it, or a tenth more, reported through the same deposit path as a ' +
      "watcher's report, unconfirmed at first, then with one more confirmation each second " +
      'until the pair’s number: the session follows (paid, overpaid and flagged, or underpaid ' +
      "at expiry). Only with CHECKOUT_SANDBOX=true (403 otherwise). Needs the page's nonce.",
    access: 'public',
    envelope: { kind: 'payload' },
    params: [TOKEN_PARAM],
    body: true,
    requestBody: {
      type: SandboxDepositDto,
      examples: {
        full: {
          summary: 'The quoted amount',
          value: { nonce: 'Jx3mT0f8pY2kQ9wV5bR7cL1dN4hS6aZe', amount: 'full' },
        },
      },
    },
    responses: [ACTION_RESPONSE],
    errors: ACTION_ERRORS,
    errorNotes: {
      ...ACTION_NOTES,
      FORBIDDEN: `${ACTION_NOTES.FORBIDDEN} Also outside the sandbox.`,
      CONFLICT: `${ACTION_NOTES.CONFLICT} Also before a pair paid on chain was chosen.`,
    },
  })
  deposit(
    @ValidParams() params: CheckoutTokenParams,
    @ValidBody() input: SandboxDepositDto,
    @ClientAddress() address: string,
  ): Promise<CheckoutState> {
    return this.checkouts.sandboxDeposit(params.token, input.nonce, input.amount, address);
  }

  @HttpCode(200)
  @Endpoint({
    method: 'POST',
    path: `${CHECKOUT_PATH}/:token/cancel`,
    operationId: 'cancelCheckout',
    summary: 'The customer cancels (page action): NOT_COMPLETED, ABANDONED_BY_USER',
    description:
      "Through the state machine, with the callback to errorUrl (or returnUrl). Needs the page's nonce, which it spends.",
    access: 'public',
    envelope: { kind: 'payload' },
    params: [TOKEN_PARAM],
    body: true,
    requestBody: {
      type: PageActionDto,
      examples: {
        cancel: { summary: 'Cancel', value: { nonce: 'Jx3mT0f8pY2kQ9wV5bR7cL1dN4hS6aZe' } },
      },
    },
    responses: [ACTION_RESPONSE],
    errors: ACTION_ERRORS,
    errorNotes: ACTION_NOTES,
  })
  cancel(
    @ValidParams() params: CheckoutTokenParams,
    @ValidBody() input: PageActionDto,
    @ClientAddress() address: string,
  ): Promise<CheckoutState> {
    return this.checkouts.cancel(params.token, input.nonce, address);
  }
}

/** A browser asking for a page: its `Accept` names `text/html`. */
export function acceptsHtml(accept: string | undefined): boolean {
  return (accept ?? '')
    .split(',')
    .some((range) => range.split(';')[0].trim().toLowerCase() === 'text/html');
}
