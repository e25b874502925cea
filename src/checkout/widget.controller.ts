import { Controller, Param, RequestMethod, UseInterceptors } from '@nestjs/common';
import { ApiExtension, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/errors/api-error.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { AT_HOST_ROOT_EXTENSION } from '../openapi/endpoint-docs.js';
import { WIDGET_PATH, CheckoutPages } from './checkout-pages.js';
import { assetResponse, type WebAnswer } from './web-answer.js';
import { WebAnswerInterceptor } from './web-answer.interceptor.js';

const WIDGET_FILE = WIDGET_PATH.split('/')[1];

/**
 * Routes served at the host's root even under a CONTEXT_PATH (the global prefix leaves them out):
 * integrations load the widget from `<host>/widgets/sgpg.js`.
 */
export const ROUTES_AT_HOST_ROOT = [{ path: WIDGET_PATH, method: RequestMethod.GET }];

const DESCRIPTION =
  'Defines `window.showPaymentIframe(containerId, {token, success?, fail?, cancel?, complete?})` ' +
  '(alias `nxsgpgc3`): puts the checkout page of `token` in an iframe inside the container, ' +
  'calls `success`, `fail` or `cancel` when the payment ends that way (each with ' +
  '`{status, detailedStatus?}`) and `complete` after any of them, and returns `{close()}`. It ' +
  'talks to its page by postMessage, origins checked on both sides. No dependencies; any query ' +
  'string is ignored.';

const WIDGET_RESPONSE = assetResponse(
  'text/javascript',
  'window.showPaymentIframe = function (containerId, options) { … };',
);

@ApiTags('Checkout')
@Controller()
@UseInterceptors(WebAnswerInterceptor)
export class WidgetController {
  constructor(private readonly pages: CheckoutPages) {}

  @ApiExtension(AT_HOST_ROOT_EXTENSION, true)
  @Endpoint({
    method: 'GET',
    path: WIDGET_PATH,
    operationId: 'getWidgetScriptAtHostRoot',
    summary: 'The payment widget (JavaScript), at the host root',
    description: `${DESCRIPTION} Served at the host's root also when CONTEXT_PATH is set, where integrations load it from.`,
    access: 'public',
    responses: [WIDGET_RESPONSE],
    errors: [],
  })
  widgetAtRoot(): WebAnswer {
    return this.pages.widget;
  }

  @Endpoint({
    method: 'GET',
    path: 'widgets/:script',
    operationId: 'getWidgetScript',
    summary: 'The payment widget (JavaScript)',
    description: DESCRIPTION,
    access: 'public',
    params: [{ name: 'script', enum: [WIDGET_FILE], description: 'The widget file.' }],
    responses: [WIDGET_RESPONSE],
    errors: ['NOT_FOUND'],
    errorNotes: { NOT_FOUND: `Any other file than ${WIDGET_FILE}.` },
  })
  widget(@Param('script') script: string): WebAnswer {
    if (script !== WIDGET_FILE) throw new ApiError('NOT_FOUND', { message: 'No such script.' });
    return this.pages.widget;
  }
}
