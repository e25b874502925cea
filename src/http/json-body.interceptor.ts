import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import type { Observable } from 'rxjs';
import type { BodyUse } from '../openapi/endpoint-docs.js';
import { hasBody, isJsonType, readJsonBody, readJsonBodyText } from '../common/http/json-body.js';
import { rawOf } from './raw.js';

export const BODY = 'body';

/**
 * Reads the JSON body of the routes that declare one (see readJsonBody), once the guard has
 * admitted the caller: a client without credentials cannot make the service read, or wait for, a
 * body. A route that takes no body (`'ignored'`) still reads a JSON one, so a broken one is a 400
 * there too; a body of another type it leaves unread. A route that verifies a signature over the
 * body (`'text'`) gets `{text, value}`: the exact text and the object read from it.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const use = this.reflector.get<BodyUse | undefined>(BODY, context.getHandler());
    const request = context.switchToHttp().getRequest<{ body?: unknown }>();
    const raw = rawOf<IncomingMessage>(request);
    if (use === 'text') {
      request.body = await readJsonBodyText(raw);
    } else if (use === true || (use === 'ignored' && hasBody(raw) && isJsonType(raw))) {
      const body = await readJsonBody(raw);
      if (use === true) request.body = body;
    }
    return next.handle();
  }
}
