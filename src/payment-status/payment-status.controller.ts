import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '../auth/current-caller.decorator.js';
import { RateLimits } from '../auth/rate-limits.js';
import { ApiError } from '../common/errors/api-error.js';
import { Endpoint, setting } from '../common/http/endpoint.decorator.js';
import { JSON_CONTENT_TYPE } from '../common/http/response.js';
import {
  DEMO_SESSION_EXAMPLES,
  PAYMENT_STATUS_EXAMPLES,
  PaymentStatusEnvelopeDto,
  STATUS_ELEMENT_MODELS,
} from './dto/payment-status-view.dto.js';
import { PaymentSessionService } from './payment-session.service.js';
import { PAYMENT_STATUS_PATH } from './payment-status.routes.js';

@ApiTags('Payment status')
@ApiExtraModels(...STATUS_ELEMENT_MODELS)
@Controller(PAYMENT_STATUS_PATH)
export class PaymentStatusController {
  constructor(
    private readonly sessions: PaymentSessionService,
    private readonly limits: RateLimits,
  ) {}

  @Get(':validationKey')
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @Endpoint({
    operationId: 'getPaymentStatus',
    summary: 'Status of a payment session',
    description:
      'Exactly one element in `payload`, shaped by `status`. An unknown key, a key that cannot ' +
      "exist and another merchant's key all get the same 404 TRANSACTION_FAILED.",
    access: 'merchant',
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
  ): Promise<string> {
    const blocked = await this.limits.statusLookupRefusal(caller.tracker);
    if (blocked) throw blocked;
    const body = await this.sessions.statusBody(validationKey, caller.merchantId);
    if (body !== undefined) return body;
    throw (
      (await this.limits.countMiss(caller.tracker)) ??
      new ApiError('TRANSACTION_FAILED', { field: 'validationKey' })
    );
  }
}
