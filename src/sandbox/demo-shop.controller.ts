import { Controller, Header, Headers, HttpCode } from '@nestjs/common';
import { ValidBody, ValidParams } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../http/endpoint.decorator.js';
import { DemoShop } from './demo-shop.service.js';
import {
  DemoCallbackBodyDto,
  DemoCallbackParams,
  DemoPaymentEnvelopeDto,
  DemoPaymentParams,
  DemoPaymentRequestDto,
  DemoPaymentStartedEnvelopeDto,
  type DemoPaymentDto,
  type DemoPaymentStartedDto,
} from './dto/demo-shop.dto.js';
import { DEMO_PATH } from './sandbox-pages.js';
import { SANDBOX_TAG } from './sandbox-pages.controller.js';
import { type ShopAddress, ShopAddressOfRequest } from './shop-address.js';

const NO_STORE = {
  'Cache-Control': {
    description: 'The answer is not to be stored.',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
};

/**
 * The demo shop's own server routes, as a merchant's backend has them: start a payment, show a
 * payment to the shop's page, and receive the gateway's callbacks.
 */
@ApiTags(SANDBOX_TAG)
@Controller()
export class DemoShopController {
  constructor(private readonly shop: DemoShop) {}

  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Endpoint({
    method: 'POST',
    path: `${DEMO_PATH}/payments`,
    operationId: 'startDemoPayment',
    summary: 'The demo shop starts a payment (its server calls init-iframe)',
    description:
      'What a merchant’s backend does when its customer pays: a new validationKey, and ' +
      'init-iframe with the demo merchant’s key (which stays on the server), its callbacks to ' +
      'this shop’s receiver. Answers the token for `showPaymentIframe` and the exchange with the ' +
      'gateway as it happened; a refusal of init-iframe (a 400 for an amount it does not take) ' +
      'is in that exchange.',
    access: 'public',
    envelope: { kind: 'payload' },
    body: true,
    requestBody: {
      type: DemoPaymentRequestDto,
      examples: {
        order: {
          summary: 'A pot of tea, paid from Ireland',
          value: {
            amount: '10.00',
            currency: 'EUR',
            description: 'Order 1001: a pot of tea',
            countryCode: 'IE',
            languagePreference: 'EN',
          },
        },
      },
    },
    responses: [
      {
        status: 200,
        type: DemoPaymentStartedEnvelopeDto,
        description: 'The exchange with init-iframe, and its token when it gave one.',
        headers: NO_STORE,
      },
    ],
    errors: ['INVALID_PARAMETER'],
  })
  start(
    @ValidBody() input: DemoPaymentRequestDto,
    @ShopAddressOfRequest() at: ShopAddress,
  ): Promise<DemoPaymentStartedDto> {
    return this.shop.start(input, at);
  }

  @Header('Cache-Control', 'no-store')
  @Endpoint({
    method: 'GET',
    path: `${DEMO_PATH}/payments/:validationKey`,
    operationId: 'getDemoPayment',
    summary: 'A payment of the demo shop: its callbacks and its status',
    description:
      'The callbacks the shop received for it (each verified with the Standard Webhooks library ' +
      'and the published demo secret) and the status lookup its server makes now, with the demo key.',
    access: 'public',
    envelope: { kind: 'payload' },
    params: [{ name: 'validationKey', description: 'The key the shop made up for the payment.' }],
    responses: [{ status: 200, type: DemoPaymentEnvelopeDto, headers: NO_STORE }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'The shop started no such payment since the sandbox started.' },
  })
  payment(
    @ValidParams() params: DemoPaymentParams,
    @ShopAddressOfRequest() at: ShopAddress,
  ): Promise<DemoPaymentDto> {
    return this.shop.payment(params.validationKey, at);
  }

  @HttpCode(204)
  @Endpoint({
    method: 'POST',
    path: `${DEMO_PATH}/callbacks/:kind`,
    operationId: 'receiveDemoCallback',
    summary: "The demo shop's callback receiver (its returnUrl and errorUrl)",
    description:
      'Where the gateway calls the demo shop back. The signature is verified over the exact ' +
      'body with the Standard Webhooks library and the published demo secret, as a merchant ' +
      'would; each webhook-id is kept once.',
    access: 'public',
    params: [{ name: 'kind', enum: ['return', 'error'], description: 'returnUrl or errorUrl.' }],
    headers: [
      { name: 'webhook-id', description: 'Standard Webhooks: the callback’s id.' },
      { name: 'webhook-timestamp', description: 'Standard Webhooks: Unix seconds of signing.' },
      { name: 'webhook-signature', description: 'Standard Webhooks: `v1,<base64 HMAC-SHA256>`.' },
    ],
    body: 'text',
    requestBody: {
      type: DemoCallbackBodyDto,
      examples: {
        failed: {
          summary: 'A failed payment',
          value: {
            status: 'FAILED',
            validationKey: 'vk_demo_7Hq2LxV0aZ3m',
            errorMessage: 'Insufficient funds',
            detailedStatus: 'INSUFFICIENT_FUNDS',
          },
        },
      },
    },
    responses: [{ status: 204, description: 'Received.' }],
    errors: ['INVALID_PARAMETER'],
    errorNotes: {
      INVALID_PARAMETER:
        'Also `webhook-signature` when the signature does not verify, or `webhook-timestamp` is more than 5 minutes off.',
    },
  })
  receive(
    @ValidParams() params: DemoCallbackParams,
    @ValidBody() body: { text: string },
    @Headers() headers: Record<string, string | undefined>,
  ): void {
    this.shop.receive(params.kind, body, headers);
  }
}
