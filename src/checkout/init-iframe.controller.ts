import { Controller, Header, HttpCode } from '@nestjs/common';
import { ValidBody } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../access/caller.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { CheckoutService } from './checkout.service.js';
import {
  INIT_IFRAME_EXAMPLE,
  InitIframeAnswerDto,
  InitIframeDto,
  InitIframeEnvelopeDto,
} from './dto/init-iframe.dto.js';

@ApiTags('Checkout')
@Controller()
export class InitIframeController {
  constructor(private readonly checkouts: CheckoutService) {}

  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Endpoint({
    method: 'POST',
    path: 'api/gateway/init-iframe',
    operationId: 'initIframe',
    summary: 'Start a payment: a PENDING session and the token of its checkout page',
    description:
      'Creates the payment session `validationKey` for the calling merchant, PENDING, with its ' +
      'callback URLs, and answers an `initializationToken` that opens the checkout page ' +
      '(`GET /widgets/sgpg.js`, then `showPaymentIframe(container, {token})`) for ' +
      'CHECKOUT_TOKEN_TTL_SECONDS. The same request again while the session is not final answers ' +
      'the same session and a new token (a NOT_COMPLETED session is opened again, PENDING). The ' +
      'client and address are personal data: erased with the session, never logged.',
    access: 'merchant',
    envelope: { kind: 'payload' },
    body: true,
    requestBody: {
      type: InitIframeDto,
      examples: { checkout: { summary: 'What integrations send', value: INIT_IFRAME_EXAMPLE } },
    },
    responses: [
      {
        status: 200,
        type: InitIframeEnvelopeDto,
        description: 'The session is PENDING; its page opens with the token.',
        headers: {
          'Cache-Control': {
            description: 'The answer holds a credential: it must not be stored.',
            required: true,
            schema: { type: 'string', enum: ['no-store'] },
          },
        },
        example: {
          payload: [
            {
              traceId: 'order-9001',
              initializationToken: 'ct_3q2-7wJd0mZkq8yF5c1n2rVb4oXh6LtA9sWeUiOpPzQ',
            },
          ],
        },
      },
    ],
    errors: ['INVALID_PARAMETER', 'CONFLICT'],
    errorNotes: {
      INVALID_PARAMETER: 'One entry per field at fault, named by its dotted path (`client.dob`).',
      CONFLICT:
        "The validationKey is in use by another session (another merchant's included: nothing about it is told), by the same key with another body, or by a session that is final.",
    },
  })
  initIframe(
    @ValidBody() input: InitIframeDto,
    @CurrentCaller() caller: Caller,
  ): Promise<InitIframeAnswerDto> {
    return this.checkouts.initIframe(caller.merchantId, input);
  }
}
