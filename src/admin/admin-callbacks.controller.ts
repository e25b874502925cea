import { Controller, HttpCode } from '@nestjs/common';
import { ValidParams } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import { CallbackService } from '../callbacks/callback.service.js';
import { SessionCallbacksDto, CallbackViewDto } from '../callbacks/dto/callback-view.dto.js';
import { ApiError } from '../common/errors/api-error.js';
import type { Listing } from '../common/http/envelope.js';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import { PAYMENT_SESSIONS_ADMIN_PATH } from '../payment-status/payment-status.routes.js';
import {
  CallbackIdParams,
  STORED_SESSION_KEY_PARAM,
  ValidationKeyParams,
} from './dto/admin-params.dto.js';

@ApiTags('Operator: callbacks')
@Controller()
export class AdminCallbacksController {
  constructor(
    private readonly callbacks: CallbackService,
    private readonly sessions: PaymentSessionService,
  ) {}

  @Endpoint({
    method: 'GET',
    path: `${PAYMENT_SESSIONS_ADMIN_PATH}/:validationKey/callbacks`,
    operationId: 'listPaymentSessionCallbacks',
    summary: "A payment session's callbacks to its merchant, with every attempt",
    description:
      'Each callback with its state (pending, delivered or failed), its URL without the query string, every attempt (time, HTTP status or error, duration) and, while pending, the time of the next one.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    params: [STORED_SESSION_KEY_PARAM],
    responses: [{ status: 200, type: SessionCallbacksDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No payment session has this key.' },
  })
  async list(
    @ValidParams() params: ValidationKeyParams,
  ): Promise<Listing<CallbackViewDto, { validationKey: string }>> {
    const payload = await this.callbacks.list(params.validationKey);
    if (payload.length === 0 && !(await this.sessions.history(params.validationKey))) {
      throw new ApiError('NOT_FOUND', {
        message: 'Payment session not found.',
        field: 'validationKey',
      });
    }
    return { validationKey: params.validationKey, items: payload };
  }

  @HttpCode(202)
  @Endpoint({
    method: 'POST',
    path: 'admin/callbacks/:id/redeliver',
    operationId: 'redeliverCallback',
    summary: 'Make one more attempt of a callback now (also of a delivered or failed one)',
    description:
      'Accepted: an instance makes the attempt within a moment, with the same webhook-id; list the ' +
      "session's callbacks to see it. A delivered or failed callback returns to that state if this attempt fails.",
    access: 'operator',
    role: 'payments',
    responses: [{ status: 202, type: CallbackViewDto, description: 'Accepted: attempted soon.' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No callback has this id.' },
  })
  redeliver(
    @ValidParams() params: CallbackIdParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<CallbackViewDto> {
    return this.callbacks.redeliver(params.id, call);
  }
}
