/**
 * Baseline (b): a bare Nest app on the same HTTP platform as the service, one handler that
 * replays the service's bytes with its headers: the framework floor. Plain JavaScript, so the
 * decorators are applied as functions.
 * usage: node nest-server.mjs <responses.json> <port>
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Controller, Get, Module, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { exitWithParent, loadSpec } from './responses.mjs';

const [file, port] = process.argv.slice(2);
const spec = loadSpec(file);
const fastify = spec.platform === 'fastify';

for (const r of spec.responses) {
  // The framework computes Content-Length itself; x-request-id is set per response.
  r.fixed = r.headers.filter(([name]) => {
    const lower = name.toLowerCase();
    return lower !== 'content-length' && lower !== r.requestIdHeader?.toLowerCase();
  });
  r.fixedObject = Object.fromEntries(r.fixed);
}

class ReplayController {
  replay(request, response) {
    const r = spec.lookup(request.originalUrl ?? request.url);
    if (fastify) {
      if (!r) return response.code(404).send();
      response.code(r.status).headers(r.fixedObject);
      if (r.requestIdHeader) response.header(r.requestIdHeader, randomUUID());
      return response.send(r.body);
    }
    if (!r) return response.status(404).end();
    response.status(r.status);
    for (const [name, value] of r.fixed) response.setHeader(name, value);
    if (r.requestIdHeader) response.setHeader(r.requestIdHeader, randomUUID());
    return response.send(r.body);
  }
}
const replay = Object.getOwnPropertyDescriptor(ReplayController.prototype, 'replay');
Reflect.decorate([Get(spec.routes)], ReplayController.prototype, 'replay', replay);
Req()(ReplayController.prototype, 'replay', 0);
Res()(ReplayController.prototype, 'replay', 1);
Reflect.decorate([Controller()], ReplayController);

class ReplayModule {}
Reflect.decorate([Module({ controllers: [ReplayController] })], ReplayModule);

exitWithParent();
let app;
if (fastify) {
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  app = await NestFactory.create(ReplayModule, new FastifyAdapter(), { logger: false });
} else {
  app = await NestFactory.create(ReplayModule, { logger: false, bodyParser: false });
  app.disable('x-powered-by');
  app.set('etag', false);
}
await app.listen(Number(port), '127.0.0.1');
process.stdout.write(`LISTENING ${port} nest-${spec.platform}\n`);
