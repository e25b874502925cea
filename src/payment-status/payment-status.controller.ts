import { Controller, Get, Header, Param } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { API_KEY_SCHEME } from '../swagger.js';
import { type Caller, CurrentCaller } from '../auth/current-merchant.decorator.js';
import { NotFoundLimiter } from '../auth/not-found-limiter.js';
import { ApiError } from '../common/errors/api-error.js';
import { JSON_CONTENT_TYPE } from '../common/http/response.js';
import { ApiErrorResponses } from '../common/http/api-error-responses.decorator.js';
import { PaymentStatusEnvelopeDto, STATUS_ELEMENT_MODELS } from './dto/payment-status-view.dto.js';
import { PaymentSessionService } from './payment-session.service.js';

export const PAYMENT_STATUS_ROUTE = 'gateway/payment-status';

@ApiTags('Payment status')
@ApiExtraModels(...STATUS_ELEMENT_MODELS)
@ApiSecurity(API_KEY_SCHEME)
@Controller('api')
export class PaymentStatusController {
  constructor(
    private readonly sessions: PaymentSessionService,
    private readonly notFoundLimiter: NotFoundLimiter,
  ) {}

  @Get(`${PAYMENT_STATUS_ROUTE}/:validationKey`)
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @ApiOperation({
    summary: 'Status of a payment session',
    description:
      'Exactly one element in `payload`, shaped by `status`. An unknown key, a key that cannot ' +
      "exist and another merchant's key all get the same 404 TRANSACTION_FAILED.",
  })
  @ApiParam({
    name: 'validationKey',
    description: 'Key of the payment session.',
    example: 'vk_9c1d7e2f4a',
  })
  @ApiOkResponse({
    type: PaymentStatusEnvelopeDto,
    headers: { 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } },
    examples: {
      SUCCESSFUL: {
        summary: 'SUCCESSFUL',
        value: {
          payload: [
            {
              status: 'SUCCESSFUL',
              paymentResponse: {
                sourceMoney: { amount: 150, currency: 'EUR', presentationAmount: 'EUR150.00' },
                destinationMoney: {
                  amount: 148.5,
                  currency: 'USDT',
                  presentationAmount: 'USDT148.50',
                },
                totalFees: { amount: 1.5, currency: 'EUR', presentationAmount: 'EUR1.50' },
                money: { amount: 150, currency: 'EUR', presentationAmount: 'EUR150.00' },
                traceId: '5f1c2a7e9b',
                clientReference: 'order-1042',
                validationKey: 'vk_9c1d7e2f4a',
                transactionReference: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
                accountNumber: 'IE29XXXXXXXXXXXXXX5678',
              },
            },
          ],
        },
      },
      PENDING: { summary: 'PENDING', value: { payload: [{ status: 'PENDING' }] } },
      NOT_COMPLETED: {
        summary: 'NOT_COMPLETED',
        value: { payload: [{ status: 'NOT_COMPLETED', detailedStatus: 'ABANDONED_BY_USER' }] },
      },
      FAILED: {
        summary: 'FAILED',
        value: {
          payload: [
            {
              status: 'FAILED',
              errorMessage: 'Insufficient funds in source wallet',
              detailedStatus: 'INSUFFICIENT_FUNDS',
            },
          ],
        },
      },
    },
  })
  @ApiErrorResponses('TRANSACTION_FAILED', 'UNAUTHORIZED')
  async status(
    @Param('validationKey') validationKey: string,
    @CurrentCaller() caller: Caller,
  ): Promise<string> {
    this.notFoundLimiter.assertAllowed(caller.tracker);
    try {
      return await this.sessions.statusBody(validationKey, caller.merchantId);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'TRANSACTION_FAILED') {
        await this.notFoundLimiter.recordMiss(caller.tracker);
      }
      throw error;
    }
  }
}
