import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ApiError } from '../common/errors/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { publishedDemoMerchant } from './demo-merchant.js';
import { DEMO_PATH } from './sandbox-pages.js';
import type { ShopAddress } from './shop-address.js';
import type {
  DemoCallbackKind,
  DemoExchangeDto,
  DemoPaymentDto,
  DemoPaymentRequestDto,
  DemoPaymentStartedDto,
  DemoReceivedCallbackDto,
} from './dto/demo-shop.dto.js';

/** Payments the demo shop remembers (its newest), and callbacks per payment. */
const PAYMENTS_KEPT = 100;
const CALLBACKS_KEPT = 10;
/** The longest the shop waits for the gateway. */
const GATEWAY_TIMEOUT_MS = 10_000;

/** The customer of every demo payment: made up, like the rest of the shop. */
const DEMO_CUSTOMER = {
  firstName: 'Ada',
  lastName: 'Example',
  phone: '871234567',
  dialingCode: '+353',
  nationality: 'IE',
  emailAddress: 'ada@example.org',
  dob: '1990-01-31',
};

/** What the demo shows instead of the API key: a merchant's key never goes to a browser. */
const KEY_SHOWN = "(the demo merchant's API key, kept on the shop's server)";

interface DemoPayment {
  callbacks: DemoReceivedCallbackDto[];
}

/**
 * The sandbox's demo shop, as a merchant's server would be: it starts a payment with init-iframe
 * (the demo merchant's key, over HTTP, to this server's own address), receives the gateway's
 * callbacks at its own receiver and verifies their signatures with the Standard Webhooks
 * library and the published demo secret, and looks the status up. It remembers, in memory, its
 * newest payments and the callbacks they received: it is a demonstration, not a store.
 */
@Injectable()
export class DemoShop {
  private readonly logger = new Logger('DemoShop');
  private readonly merchant = publishedDemoMerchant();
  private readonly webhook = new Webhook(this.merchant.callbackSecret);
  private readonly payments = new Map<string, DemoPayment>();
  private readonly base: string;
  private orders = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = config.contextPath;
  }

  /**
   * Starts a payment: a new validationKey, the customer's choices in an init-iframe request
   * whose callbacks come back to this shop at the origin the browser uses.
   */
  async start(input: DemoPaymentRequestDto, at: ShopAddress): Promise<DemoPaymentStartedDto> {
    const validationKey = `vk_demo_${randomBytes(9).toString('base64url')}`;
    const order = `order-${Date.now().toString(36)}-${++this.orders}`;
    const receiver = `${at.browser ?? at.local}${this.base}/${DEMO_PATH}/callbacks`;
    const body = {
      money: { amount: input.amount, currency: input.currency },
      client: DEMO_CUSTOMER,
      address: { addressLine1: '1 Demo Street', countryCode: input.countryCode, city: 'Dublin' },
      validationKey,
      clientReference: 'demo-customer-1',
      traceId: order,
      description: input.description,
      destinationAccountNumber: '5001000001223369',
      brandId: 'demo-shop',
      returnUrl: `${receiver}/return`,
      errorUrl: `${receiver}/error`,
      ...(input.languagePreference ? { languagePreference: input.languagePreference } : {}),
    };
    const initIframe = await this.call(at, 'POST', '/api/gateway/init-iframe', body);
    this.remember(validationKey);
    const token = (initIframe.responseBody as { payload?: { initializationToken?: string }[] })
      .payload?.[0]?.initializationToken;
    return {
      validationKey,
      ...(initIframe.status === 200 && token ? { initializationToken: token } : {}),
      initIframe,
    };
  }

  /**
   * A callback from the gateway: taken only when its signature verifies with the published
   * secret (the library also refuses a timestamp more than 5 minutes off), kept once per
   * webhook-id.
   */
  receive(
    kind: DemoCallbackKind,
    body: { text: string },
    headers: Record<string, string | undefined>,
  ): void {
    let signed: unknown;
    try {
      signed = this.webhook.verify(body.text, {
        'webhook-id': headers['webhook-id'] ?? '',
        'webhook-timestamp': headers['webhook-timestamp'] ?? '',
        'webhook-signature': headers['webhook-signature'] ?? '',
      });
    } catch {
      throw ApiError.invalidParameters([
        {
          field: 'webhook-signature',
          message:
            "must verify with the demo merchant's published secret (Standard Webhooks), within 5 minutes of webhook-timestamp",
        },
      ]);
    }
    const callback = signed as { validationKey?: unknown };
    const payment =
      typeof callback.validationKey === 'string'
        ? this.payments.get(callback.validationKey)
        : undefined;
    // A payment the shop does not know (started before this process): received, not shown.
    if (!payment) return;
    const webhookId = headers['webhook-id'] ?? '';
    const again = payment.callbacks.find((c) => c.webhookId === webhookId);
    if (again) {
      again.deliveries++;
      return;
    }
    payment.callbacks.push({
      webhookId,
      signedAt: new Date(Number(headers['webhook-timestamp']) * 1000).toISOString(),
      kind,
      deliveries: 1,
      signature: 'verified',
      body: signed as object,
    });
    payment.callbacks.splice(0, payment.callbacks.length - CALLBACKS_KEPT);
    this.logger.log({ kind, webhookId }, 'Demo shop received a callback');
  }

  /** A payment of the shop: the callbacks it received, and the status lookup's answer now. */
  async payment(validationKey: string, at: ShopAddress): Promise<DemoPaymentDto> {
    const payment = this.payments.get(validationKey);
    if (!payment) {
      throw new ApiError('NOT_FOUND', {
        message: 'The demo shop started no such payment (since it started).',
        field: 'validationKey',
      });
    }
    const statusLookup = await this.call(
      at,
      'GET',
      `/api/gateway/payment-status/${encodeURIComponent(validationKey)}`,
    );
    return { validationKey, callbacks: payment.callbacks, statusLookup };
  }

  private remember(validationKey: string): void {
    this.payments.set(validationKey, { callbacks: [] });
    for (const oldest of this.payments.keys()) {
      if (this.payments.size <= PAYMENTS_KEPT) break;
      this.payments.delete(oldest);
    }
  }

  /** One request of the shop's server to the gateway, with the demo key, as integrations send it. */
  private async call(
    at: ShopAddress,
    method: 'GET' | 'POST',
    path: string,
    requestBody?: object,
  ): Promise<DemoExchangeDto> {
    const headers = {
      key: this.merchant.apiKey,
      'x-api-version': '1',
      ...(requestBody ? { 'content-type': 'application/json' } : {}),
    };
    const answer = await fetch(`${at.local}${this.base}${path}`, {
      method,
      headers,
      body: requestBody ? JSON.stringify(requestBody) : undefined,
      signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
    });
    const text = await answer.text();
    let responseBody: unknown = text;
    try {
      responseBody = JSON.parse(text);
    } catch {
      // Not JSON: shown as the text it is.
    }
    return {
      method,
      path,
      headers: { ...headers, key: KEY_SHOWN },
      ...(requestBody ? { requestBody } : {}),
      status: answer.status,
      responseBody,
    };
  }
}
