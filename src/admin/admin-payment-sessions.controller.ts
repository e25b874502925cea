import { Controller, HttpCode, Res } from '@nestjs/common';
import { ValidBody, ValidParams, ValidQuery } from '../common/validation.js';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/errors/api-error.js';
import type { Listing } from '../common/http/envelope.js';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import type { ResponseControls } from '../common/http/response.js';
import {
  NEW_SESSION_KEY_EXAMPLE,
  PAYMENT_REPORT_EXAMPLES,
  PaymentReportDto,
} from '../payment-status/dto/payment-report.dto.js';
import {
  PaymentStatusElement,
  STATUS_ELEMENT_MODELS,
} from '../payment-status/dto/payment-status-view.dto.js';
import { VALIDATION_KEY_DESCRIPTION } from '../payment-status/payment-status.types.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import { buildStatusElement } from '../payment-status/payment-status.shapes.js';
import { PAYMENT_SESSIONS_ADMIN_PATH } from '../payment-status/payment-status.routes.js';
import { STORED_SESSION_KEY_PARAM, ValidationKeyParams } from './dto/admin-params.dto.js';
import {
  SessionDetailDto,
  SessionListDto,
  SessionListQueryDto,
  SessionSummaryDto,
} from './dto/admin-sessions.dto.js';
import { PaymentSessionViews } from './payment-session-views.js';
import {
  AdminPaymentSessionDto,
  TransitionDto,
  TransitionHistoryDto,
} from './dto/admin-views.dto.js';

@ApiTags('Operator: payment sessions')
@ApiExtraModels(...STATUS_ELEMENT_MODELS)
@Controller()
export class AdminPaymentSessionsController {
  constructor(
    private readonly sessions: PaymentSessionService,
    private readonly views: PaymentSessionViews,
  ) {}

  @Endpoint({
    method: 'GET',
    path: PAYMENT_SESSIONS_ADMIN_PATH,
    operationId: 'listPaymentSessions',
    summary: 'Payment sessions, newest first, a page at a time',
    description:
      'Filtered by merchant, status and creation time (`createdFrom` included, `createdTo` ' +
      'excluded). Each page ends with `nextCursor` while older sessions are left: pass it as ' +
      '`cursor` for the next page. Sessions created meanwhile never shift the pages.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: SessionListDto }],
    errors: ['INVALID_PARAMETER'],
  })
  list(
    @ValidQuery() query: SessionListQueryDto,
  ): Promise<Listing<SessionSummaryDto, { nextCursor?: string }>> {
    return this.views.list(query);
  }

  @Endpoint({
    method: 'GET',
    path: `${PAYMENT_SESSIONS_ADMIN_PATH}/:validationKey`,
    operationId: 'getPaymentSession',
    summary: 'One payment session as the operator sees it',
    description:
      'Its status element, amount, traceId, clientReference, who created it and when, its ' +
      'callback URLs and, for a checkout, the chosen pair and when its token expires. The ' +
      "customer's personal data (the payment response's personal fields, the checkout's client " +
      'and address) only for the roles `payments` and `admin`.',
    access: 'operator',
    role: 'viewer',
    params: [STORED_SESSION_KEY_PARAM],
    responses: [{ status: 200, type: SessionDetailDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No payment session has this key.' },
  })
  detail(
    @ValidParams() params: ValidationKeyParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<SessionDetailDto> {
    return this.views.detail(params.validationKey, call.operator);
  }

  @Endpoint({
    method: 'PUT',
    path: `${PAYMENT_SESSIONS_ADMIN_PATH}/:validationKey`,
    operationId: 'reportPaymentSession',
    summary: 'Create a payment session or move it to a new state',
    description:
      'NOT_COMPLETED and PENDING may move to any status; SUCCESSFUL and FAILED are final. The ' +
      'identical final report again is a 200 no-op; any other change of a final session is a 409 ' +
      'and changes nothing. Of two concurrent conflicting reports exactly one wins.',
    access: 'operator',
    role: 'payments',
    envelope: { kind: 'list' },
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
    @ValidParams() params: ValidationKeyParams,
    @ValidBody() report: PaymentReportDto,
    @Res({ passthrough: true }) response: Pick<ResponseControls, 'status'>,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<Listing<PaymentStatusElement, Omit<AdminPaymentSessionDto, 'payload'>>> {
    const { outcome, session } = await this.sessions.report(params.validationKey, report, call);
    response.status(outcome === 'created' ? 201 : 200);
    return {
      validationKey: session.validationKey,
      merchantId: session.merchantId,
      version: session.version,
      outcome,
      items: [buildStatusElement(session.validationKey, session)],
    };
  }

  @Endpoint({
    method: 'GET',
    path: `${PAYMENT_SESSIONS_ADMIN_PATH}/:validationKey/history`,
    operationId: 'getPaymentSessionHistory',
    summary: 'Every transition of a payment session, oldest first',
    description:
      'One entry per report that changed what the merchant sees (new callback URLs alone, or an identical repeat, add none): the status before and after, the detailed status, and when.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    params: [STORED_SESSION_KEY_PARAM],
    responses: [{ status: 200, type: TransitionHistoryDto }],
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No payment session has this key.' },
  })
  async history(
    @ValidParams() params: ValidationKeyParams,
  ): Promise<Listing<TransitionDto, { validationKey: string }>> {
    const transitions = await this.sessions.history(params.validationKey);
    if (!transitions) {
      throw new ApiError('NOT_FOUND', {
        message: 'Payment session not found.',
        field: 'validationKey',
      });
    }
    return {
      validationKey: params.validationKey,
      items: transitions.map((t) => ({
        from: t.fromStatus,
        to: t.toStatus,
        ...(t.detailedStatus === null ? {} : { detailedStatus: t.detailedStatus }),
        ...(t.actor === null ? {} : { by: t.actor }),
        at: t.at.toISOString(),
      })),
    };
  }

  @HttpCode(204)
  @Endpoint({
    method: 'DELETE',
    path: `${PAYMENT_SESSIONS_ADMIN_PATH}/:validationKey/personal-data`,
    operationId: 'erasePaymentSessionPersonalData',
    summary: "Erase a payment session's personal data now",
    description:
      "The customer's name, date of birth, e-mail address, account numbers and country code go " +
      'from the session, from its callbacks (pending and delivered) and from what every instance ' +
      'keeps; money, references and status stay. The status lookup then answers the same shape ' +
      'without those fields. Erasing again is a no-op.',
    access: 'operator',
    role: 'payments',
    params: [{ name: 'validationKey', description: VALIDATION_KEY_DESCRIPTION }],
    responses: [
      { status: 204, description: 'Erased (also when there was nothing left to erase).' },
    ],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No payment session has this key.' },
  })
  async erasePersonalData(
    @ValidParams() params: ValidationKeyParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<void> {
    await this.sessions.erasePersonalData(params.validationKey, call);
  }
}
