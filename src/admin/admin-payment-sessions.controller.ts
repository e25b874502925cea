import { Body, Controller, Get, Param, Put, Res } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/errors/api-error.js';
import { Endpoint } from '../common/http/endpoint.decorator.js';
import type { ResponseControls } from '../common/http/response.js';
import {
  NEW_SESSION_KEY_EXAMPLE,
  PAYMENT_REPORT_EXAMPLES,
  PaymentReportDto,
} from '../payment-status/dto/payment-report.dto.js';
import {
  DEMO_SESSION_EXAMPLES,
  STATUS_ELEMENT_MODELS,
} from '../payment-status/dto/payment-status-view.dto.js';
import { VALIDATION_KEY_DESCRIPTION } from '../payment-status/payment-status.types.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import { buildStatusElement } from '../payment-status/payment-status.shapes.js';
import { PAYMENT_SESSIONS_ADMIN_PATH } from '../payment-status/payment-status.routes.js';
import { ValidationKeyParams } from './dto/admin-params.dto.js';
import { AdminPaymentSessionDto, TransitionHistoryDto } from './dto/admin-views.dto.js';

@ApiTags('Operator: payment sessions')
@ApiExtraModels(...STATUS_ELEMENT_MODELS)
@Controller(PAYMENT_SESSIONS_ADMIN_PATH)
export class AdminPaymentSessionsController {
  constructor(private readonly sessions: PaymentSessionService) {}

  @Put(':validationKey')
  @Endpoint({
    operationId: 'reportPaymentSession',
    summary: 'Create a payment session or move it to a new state',
    description:
      'NOT_COMPLETED and PENDING may move to any status; SUCCESSFUL and FAILED are final. The ' +
      'identical final report again is a 200 no-op; any other change of a final session is a 409 ' +
      'and changes nothing. Of two concurrent conflicting reports exactly one wins.',
    access: 'operator',
    params: [
      {
        name: 'validationKey',
        description: `${VALIDATION_KEY_DESCRIPTION} The example is a session the sandbox does not have yet.`,
        examples: {
          newSession: { summary: 'A new session', value: NEW_SESSION_KEY_EXAMPLE },
        },
      },
    ],
    requestBody: { type: PaymentReportDto, examples: PAYMENT_REPORT_EXAMPLES },
    responses: [
      { status: 201, type: AdminPaymentSessionDto, description: 'Session created.' },
      {
        status: 200,
        type: AdminPaymentSessionDto,
        description: 'Moved, or unchanged (identical repeat).',
      },
    ],
    body: true,
    errors: ['INVALID_PARAMETER', 'CONFLICT'],
    errorNotes: {
      INVALID_PARAMETER: 'Also when a new session names a merchant that does not exist.',
      CONFLICT:
        'The session is final (SUCCESSFUL or FAILED) and the report differs, it belongs to ' +
        'another merchant, or a concurrent report won.',
    },
  })
  async report(
    @Param() params: ValidationKeyParams,
    @Body() report: PaymentReportDto,
    @Res({ passthrough: true }) response: Pick<ResponseControls, 'status'>,
  ): Promise<AdminPaymentSessionDto> {
    const { outcome, session } = await this.sessions.report(params.validationKey, report);
    response.status(outcome === 'created' ? 201 : 200);
    return {
      validationKey: session.validationKey,
      merchantId: session.merchantId,
      version: session.version,
      outcome,
      payload: [buildStatusElement(session.validationKey, session)],
    };
  }

  @Get(':validationKey/history')
  @Endpoint({
    operationId: 'getPaymentSessionHistory',
    summary: 'Every transition of a payment session, oldest first',
    description:
      'One entry per report that changed what the merchant sees (new callback URLs alone, or an identical repeat, add none): the status before and after, the detailed status, and when.',
    access: 'operator',
    params: [
      {
        name: 'validationKey',
        description: `${VALIDATION_KEY_DESCRIPTION} The examples are the sandbox's demo sessions.`,
        examples: DEMO_SESSION_EXAMPLES,
      },
    ],
    responses: [{ status: 200, type: TransitionHistoryDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No payment session has this key.' },
  })
  async history(@Param() params: ValidationKeyParams): Promise<TransitionHistoryDto> {
    const transitions = await this.sessions.history(params.validationKey);
    if (!transitions) {
      throw new ApiError('NOT_FOUND', {
        message: 'Payment session not found.',
        field: 'validationKey',
      });
    }
    return {
      validationKey: params.validationKey,
      payload: transitions.map((t) => ({
        from: t.fromStatus,
        to: t.toStatus,
        ...(t.detailedStatus === null ? {} : { detailedStatus: t.detailedStatus }),
        at: t.at.toISOString(),
      })),
    };
  }
}
