/**
 * Bare Nest on the service's platform: the service's two route patterns, each returning the
 * answer's value for Nest to serialise and send, nothing else (no guard, interceptor, filter or
 * headers of the service; the platform's defaults). Plain JavaScript: decorators as functions.
 * usage: node bare-nest.mjs <replay.json> <port>
 */
import 'reflect-metadata';
import { Controller, Get, Module, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { exitWithParent, listening, loadReplay } from './replay.mjs';

const [file, port] = process.argv.slice(2);
const replay = loadReplay(file);

class BareController {
  answer(request) {
    return replay.lookup(request.originalUrl ?? request.url)?.value;
  }
}
const method = Object.getOwnPropertyDescriptor(BareController.prototype, 'answer');
Reflect.decorate(
  [Get([replay.catalogPath.slice(1), `${replay.statusPath.slice(1)}:validationKey`])],
  BareController.prototype,
  'answer',
  method,
);
Req()(BareController.prototype, 'answer', 0);
Reflect.decorate([Controller()], BareController);
class BareModule {}
Reflect.decorate([Module({ controllers: [BareController] })], BareModule);

exitWithParent();
let app;
if (replay.platform === 'fastify') {
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  app = await NestFactory.create(BareModule, new FastifyAdapter(), { logger: false });
} else {
  app = await NestFactory.create(BareModule, { logger: false });
}
await app.listen(Number(port), '127.0.0.1');
listening('bare-nest', port);
