/**
 * The card floor (bench/README.md, "Baselines"): a Nest app with exactly the design's shape and
 * nothing else: one global guard reading the route's metadata (the API key of `access: 'api-key'`
 * routes), one global interceptor mapping the handler's value to its serialised envelope, one
 * global exception filter, and routes returning a value that Nest sends. It answers the service's
 * bytes: the interceptor sets the captured headers of the answer (a fresh x-request-id) and
 * serialises `{ payload: items, page }`; run.mjs checks the bytes against the service's before
 * measuring. Express's ETag and X-Powered-By are off: the service sends neither. Plain
 * JavaScript: decorators as functions.
 * usage: node card-floor.mjs <replay.json> <port>
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import {
  Catch,
  Controller,
  Get,
  HttpException,
  Module,
  NotFoundException,
  Param,
  Query,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import {
  APP_FILTER,
  APP_GUARD,
  APP_INTERCEPTOR,
  HttpAdapterHost,
  NestFactory,
  Reflector,
} from '@nestjs/core';
import { map } from 'rxjs';
import { exitWithParent, listening, loadReplay } from './replay.mjs';

const [file, port] = process.argv.slice(2);
const replay = loadReplay(file);
const ACCESS = 'access';

class AccessGuard {
  constructor(reflector) {
    this.reflector = reflector;
  }
  canActivate(context) {
    if (this.reflector.get(ACCESS, context.getHandler()) !== 'api-key') return true;
    if (context.switchToHttp().getRequest().headers.key !== replay.apiKey) {
      throw new UnauthorizedException();
    }
    return true;
  }
}

class EnvelopeInterceptor {
  constructor({ httpAdapter }) {
    this.http = httpAdapter;
  }
  intercept(context, next) {
    const http = context.switchToHttp();
    const request = http.getRequest();
    const response = http.getResponse();
    const answer = replay.lookup(request.originalUrl ?? request.url);
    for (const [name, value, isRequestId] of answer?.headers ?? []) {
      this.http.setHeader(response, name, isRequestId ? randomUUID() : value);
    }
    return next
      .handle()
      .pipe(
        map(({ items, page }) =>
          JSON.stringify(page ? { payload: items, page } : { payload: items }),
        ),
      );
  }
}

class ErrorsFilter {
  constructor({ httpAdapter }) {
    this.http = httpAdapter;
  }
  catch(exception, host) {
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const response = host.switchToHttp().getResponse();
    this.http.setHeader(response, 'Content-Type', 'application/json; charset=utf-8');
    this.http.reply(
      response,
      JSON.stringify({ error: { status, message: exception.message } }),
      status,
    );
  }
}
Reflect.decorate([Catch()], ErrorsFilter);

/** The service's two read routes, each returning the stored value of what it is asked. */
class CardController {
  catalog(countryCode) {
    return valueOf(
      countryCode ? `${replay.catalogPath}?countryCode=${countryCode}` : replay.catalogPath,
    );
  }
  status(validationKey) {
    return valueOf(replay.statusPath + validationKey);
  }
}
function valueOf(path) {
  const answer = replay.lookup(path);
  if (!answer) throw new NotFoundException();
  return { items: answer.value.payload, page: answer.value.page };
}
const route = (name, path, ...decorators) =>
  Reflect.decorate(
    [Get(path), SetMetadata(ACCESS, 'api-key'), ...decorators],
    CardController.prototype,
    name,
    Object.getOwnPropertyDescriptor(CardController.prototype, name),
  );
route('catalog', replay.catalogPath.slice(1));
route('status', `${replay.statusPath.slice(1)}:validationKey`);
Query('countryCode')(CardController.prototype, 'catalog', 0);
Param('validationKey')(CardController.prototype, 'status', 0);
Reflect.decorate([Controller()], CardController);

class CardModule {}
Reflect.decorate(
  [
    Module({
      controllers: [CardController],
      providers: [
        { provide: APP_GUARD, useFactory: (r) => new AccessGuard(r), inject: [Reflector] },
        {
          provide: APP_INTERCEPTOR,
          useFactory: (h) => new EnvelopeInterceptor(h),
          inject: [HttpAdapterHost],
        },
        { provide: APP_FILTER, useFactory: (h) => new ErrorsFilter(h), inject: [HttpAdapterHost] },
      ],
    }),
  ],
  CardModule,
);

exitWithParent();
const options = { logger: false, bodyParser: false };
let app;
if (replay.platform === 'fastify') {
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  app = await NestFactory.create(CardModule, new FastifyAdapter(), options);
} else {
  app = await NestFactory.create(CardModule, options);
  app.set('etag', false);
  app.disable('x-powered-by');
}
await app.listen(Number(port), '127.0.0.1');
listening('card-floor', port);
