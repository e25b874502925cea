import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { clientAddressOf } from '../http/platform.js';

/**
 * The address of the client the request came from, as the rate limits count it (`ip:<address>`):
 * past the proxies TRUST_PROXY names, the one they forwarded for.
 */
export const ClientAddress = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string =>
    clientAddressOf(context.switchToHttp().getRequest<object>()),
);
