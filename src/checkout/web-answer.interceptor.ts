import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Observable, map } from 'rxjs';
import { ifNoneMatchMatches, notModified, type ResponseControls } from '../common/http/response.js';
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
        const request = rawOf<IncomingMessage>(http.getRequest());
        const unchanged =
          value.etag !== undefined &&
          ifNoneMatchMatches(request.headers['if-none-match'], value.etag);
        for (const name of value.withoutHeaders ?? []) raw.removeHeader(name);
        if (value.status !== undefined) response.status(value.status);
        // A 304 has no body to describe: its type is kept aside (a HEAD's gets it back in
        // notModified).
        let contentType: string | undefined;
        for (const [name, header] of Object.entries(value.headers)) {
          if (unchanged && name.toLowerCase() === 'content-type') contentType = header;
          else response.header(name, header);
        }
        if (value.etag !== undefined) response.header('ETag', value.etag);
        if (!unchanged) return value.body;
        return notModified(response, request.method, { body: value.body, contentType });
      }),
    );
  }
}
