import { Controller, Header, Param } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../access/caller.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { setting } from '../openapi/endpoint-docs.js';
import {
  DEMO_SESSION_EXAMPLES,
  PAYMENT_STATUS_EXAMPLES,
  PaymentStatusElement,
  PaymentStatusEnvelopeDto,
  STATUS_ELEMENT_MODELS,
} from './dto/payment-status-view.dto.js';
import { PaymentSessionService } from './payment-session.service.js';
import { PAYMENT_STATUS_PATH } from './payment-status.routes.js';
import { StatusLookupLimit } from './status-lookup-limit.js';

@ApiTags('Payment status')
@ApiExtraModels(...STATUS_ELEMENT_MODELS)
@Controller()
export class PaymentStatusController {
  constructor(
    private readonly sessions: PaymentSessionService,
    private readonly limit: StatusLookupLimit,
  ) {}

  @Header('Cache-Control', 'no-store')
  @Endpoint({
    method: 'GET',
    path: `${PAYMENT_STATUS_PATH}/:validationKey`,
    operationId: 'getPaymentStatus',
    summary: 'Status of a payment session',
    description:
      'Exactly one element in `payload`, shaped by `status`. An unknown key, a key that cannot ' +
      "exist and another merchant's key all get the same 404 TRANSACTION_FAILED.",
    access: 'merchant',
    envelope: { kind: 'payload' },
    params: [
      {
        name: 'validationKey',
        description:
          "Key of the payment session, percent-encoded. The examples are the sandbox's demo sessions.",
        examples: DEMO_SESSION_EXAMPLES,
      },
    ],
    responses: [
      {
        status: 200,
        type: PaymentStatusEnvelopeDto,
        headers: {
          'Cache-Control': {
            description: 'The answer holds personal data: it must not be stored.',
            required: true,
            schema: { type: 'string', enum: ['no-store'] },
          },
        },
        examples: PAYMENT_STATUS_EXAMPLES,
      },
    ],
    errors: ['TRANSACTION_FAILED'],
    errorNotes: {
      RATE_LIMITED:
        `Also after ${setting('notFoundLimit')} lookups that end in 404 within ` +
        `${setting('notFoundWindowSeconds')} s: every status lookup of this caller is then refused ` +
        'until that window ends.',
    },
  })
  async status(
    @Param('validationKey') validationKey: string,
    @CurrentCaller() caller: Caller,
  ): Promise<PaymentStatusElement> {
    const blocked = await this.limit.refusal(caller.tracker);
    if (blocked) throw blocked;
    const element = await this.sessions.status(validationKey, caller.merchantId);
    if (element) return element;
    throw await this.limit.miss(caller.tracker);
  }
}
