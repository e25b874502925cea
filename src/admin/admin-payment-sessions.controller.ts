import { Body, Controller, Get, Param, Put, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiCreatedResponse,
  ApiOperation,
  ApiTags,
  ApiExtraModels,
} from '@nestjs/swagger';
import { AdminOnly } from '../auth/admin.guard.js';
import { ApiErrorResponses } from '../common/http/api-error-responses.decorator.js';
import { PaymentReportDto } from '../payment-status/dto/payment-report.dto.js';
import { STATUS_ELEMENT_MODELS } from '../payment-status/dto/payment-status-view.dto.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import { buildStatusElement } from '../payment-status/payment-status.shapes.js';
import { ValidationKeyParams } from './dto/admin-params.dto.js';
import { AdminPaymentSessionDto, TransitionHistoryDto } from './dto/admin-views.dto.js';

/** The part of a response object both platforms share for setting the status. */
interface StatusSettable {
  status(code: number): unknown;
}

@ApiTags('Operator: payment sessions')
@ApiExtraModels(...STATUS_ELEMENT_MODELS)
@AdminOnly()
@Controller('admin/payment-sessions')
export class AdminPaymentSessionsController {
  constructor(private readonly sessions: PaymentSessionService) {}

  @Put(':validationKey')
  @ApiOperation({
    summary: 'Create a payment session or move it to a new state',
    description:
      'NOT_COMPLETED and PENDING may move to any status; SUCCESSFUL and FAILED are final. The ' +
      'identical final report again is a 200 no-op; any other change of a final session is a 409 ' +
      'and changes nothing. Of two concurrent conflicting reports exactly one wins.',
  })
  @ApiCreatedResponse({ type: AdminPaymentSessionDto, description: 'Session created.' })
  @ApiOkResponse({
    type: AdminPaymentSessionDto,
    description: 'Moved, or unchanged (identical repeat).',
  })
  @ApiErrorResponses(
    'INVALID_PARAMETER',
    'MALFORMED_REQUEST',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'CONFLICT',
    'PAYLOAD_TOO_LARGE',
  )
  async report(
    @Param() params: ValidationKeyParams,
    @Body() report: PaymentReportDto,
    @Res({ passthrough: true }) response: StatusSettable,
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
  @ApiOperation({ summary: 'Every transition of a payment session, oldest first' })
  @ApiOkResponse({ type: TransitionHistoryDto })
  @ApiErrorResponses('INVALID_PARAMETER', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND')
  async history(@Param() params: ValidationKeyParams): Promise<TransitionHistoryDto> {
    return {
      validationKey: params.validationKey,
      payload: await this.sessions.history(params.validationKey),
    };
  }
}
