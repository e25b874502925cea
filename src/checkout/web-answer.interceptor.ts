import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Observable, map } from 'rxjs';
import { ifNoneMatchMatches, type ResponseControls } from '../common/http/response.js';
import { rawOf } from '../http/raw.js';
import { isWebAnswer } from './web-answer.js';

/**
 * Writes the pages, scripts and stylesheets the checkout serves: their headers (a page's own
 * Content-Security-Policy replaces the one every answer gets), and a 304 without a body for an
 * `If-None-Match` that matches their ETag.
 */
@Injectable()
export class WebAnswerInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    return next.handle().pipe(
      map((value: unknown) => {
        if (!isWebAnswer(value)) return value;
        const response = http.getResponse<ResponseControls>();
        const raw = rawOf<ServerResponse>(response);
        for (const name of value.withoutHeaders ?? []) raw.removeHeader(name);
        for (const [name, header] of Object.entries(value.headers)) response.header(name, header);
        if (value.etag === undefined) return value.body;
        response.header('ETag', value.etag);
        const request = rawOf<IncomingMessage>(http.getRequest());
        if (ifNoneMatchMatches(request.headers['if-none-match'], value.etag)) {
          response.status(304);
          return '';
        }
        return value.body;
      }),
    );
  }
}
