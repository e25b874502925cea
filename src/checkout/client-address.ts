import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { rawOf } from '../http/raw.js';

/** The address the request came from, as the rate limits count it (`ip:<address>`). */
export const ClientAddress = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string =>
    `ip:${rawOf<IncomingMessage>(context.switchToHttp().getRequest()).socket.remoteAddress ?? 'unknown'}`,
);
