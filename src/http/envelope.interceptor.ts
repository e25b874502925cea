import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { Observable, map } from 'rxjs';
import { sourceVersionOf, type Listing } from '../common/http/envelope.js';
import {
  JSON_CONTENT_TYPE,
  type ResponseControls,
  ifNoneMatchMatches,
  notModified,
  strongEtag,
} from '../common/http/response.js';
import { rawOf } from './raw.js';

/**
 * How the envelope interceptor answers a route's value: `payload` wraps one element
 * (`{"payload":[element]}`), `list` a Listing (`{...its fields, "payload": items, "page"?}`).
 * `etag` adds a strong ETag of the bytes and answers a matching `If-None-Match` with a 304.
 */
export interface Envelope {
  kind: 'payload' | 'list';
  etag?: boolean;
}
export const ENVELOPE = 'envelope';

/** An answer's bytes, and its tag when its route offers one. */
interface Serialised {
  body: string;
  etag?: string;
}

/**
 * Shapes every success envelope and serialises it, for the routes whose `@Endpoint` declares one:
 * - `payload`: the route returns one element, answered as `{"payload":[element]}`;
 * - `list`: the route returns a Listing (`items`, maybe `page`, maybe fields of its own),
 *   answered as `{...its fields, "payload": items, "page"}`.
 * With `etag`, the answer carries a strong ETag of its bytes (and of its source's version, when the
 * value carries one) and an `If-None-Match` that matches gets a 304 without a body. A frozen
 * value is one a service keeps and hands out again (a final status, a catalog page): its bytes
 * and tag are computed once and kept beside it.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  private readonly declared = new WeakMap<object, Envelope | null>();
  private readonly kept = new WeakMap<object, Serialised>();

  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const envelope = this.envelopeOf(context.getHandler());
    if (!envelope) return next.handle();
    const http = context.switchToHttp();
    return next
      .handle()
      .pipe(
        map((value: unknown) =>
          this.answer(value, envelope, http.getRequest(), http.getResponse<ResponseControls>()),
        ),
      );
  }

  private answer(
    value: unknown,
    envelope: Envelope,
    request: unknown,
    response: ResponseControls,
  ): string | undefined {
    const serialised = this.serialised(value, envelope);
    const raw = rawOf<IncomingMessage>(request);
    const ifNoneMatch = raw.headers['if-none-match'];
    if (envelope.etag) {
      serialised.etag ??= strongEtag(serialised.body, sourceVersionOf(value));
      response.header('ETag', serialised.etag);
      if (ifNoneMatchMatches(ifNoneMatch, serialised.etag)) {
        return notModified(response, raw.method, unchangedAnswer(serialised));
      }
    } else if (ifNoneMatch?.trim() === '*' && (raw.method === 'GET' || raw.method === 'HEAD')) {
      // RFC 9110: `*` matches any current representation of a GET or HEAD (as
      // Express's `send` reads it too, so both platforms answer alike).
      return notModified(response, raw.method, unchangedAnswer(serialised));
    }
    response.header('Content-Type', JSON_CONTENT_TYPE);
    return serialised.body;
  }

  private serialised(value: unknown, envelope: Envelope): Serialised {
    const keep = typeof value === 'object' && value !== null && Object.isFrozen(value);
    const kept = keep ? this.kept.get(value) : undefined;
    if (kept) return kept;
    const serialised = { body: JSON.stringify(shaped(value, envelope)) };
    if (keep) this.kept.set(value, serialised);
    return serialised;
  }

  private envelopeOf(handler: object): Envelope | null {
    let envelope = this.declared.get(handler);
    if (envelope === undefined) {
      envelope =
        this.reflector.get<Envelope | undefined>(ENVELOPE, handler as () => unknown) ?? null;
      this.declared.set(handler, envelope);
    }
    return envelope;
  }
}

const unchangedAnswer = ({ body }: Serialised) => ({ body, contentType: JSON_CONTENT_TYPE });

function shaped(value: unknown, envelope: Envelope): unknown {
  if (envelope.kind === 'payload') return { payload: [value] };
  const { items, page, ...own } = value as Listing<unknown>;
  return page === undefined ? { ...own, payload: items } : { ...own, payload: items, page };
}
