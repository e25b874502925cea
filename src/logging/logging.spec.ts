import type { IncomingMessage, ServerResponse } from 'node:http';
import pino from 'pino';
import { Logger } from '@nestjs/common';
import { NestLogger, logCompletion } from './logging.js';

/** A logger like the service's, writing its lines into an array. */
function capturingLogger(level = 'info') {
  const lines: string[] = [];
  const logger = pino({ level, base: { pid: process.pid } }, { write: (line) => lines.push(line) });
  return { logger, lines };
}

function request(method: string, requestId: string): IncomingMessage {
  return { method, headers: { 'x-request-id': requestId } } as unknown as IncomingMessage;
}

const response = (statusCode: number, writableFinished = true) =>
  ({ statusCode, writableFinished }) as unknown as ServerResponse;

const line = (url: string, route?: string, latencyMs = 1) => ({ url: () => url, route, latencyMs });

/** The line without its time, which differs between two calls. */
const timeless = (line: string) => line.replace(/,"time":\d+/, '');

describe('logCompletion', () => {
  it.each([
    ['GET', 'req-1', '/api/x', 200, 'api/x', true, 'info'],
    ['GET', 'req-2', '/api/gateway/payment-status/vk_dem…', 404, undefined, true, 'warn'],
    ['POST', 'req-3', '/admin/a"b\\\\c?q=\\u007f', 503, '/admin/:id', true, 'error'],
    // Cut off: the status never reached the client, so the line says aborted instead.
    ['PUT', 'req-4', '/admin/x', 201, '/admin/:id', false, 'warn'],
  ] as const)(
    'writes exactly the line pino writes for %s %s → %s',
    (method, id, url, status, route, finished, level) => {
      const ours = capturingLogger();
      logCompletion(
        ours.logger,
        request(method, id),
        response(status, finished),
        line(url, route, 1.26),
      );

      const reference = capturingLogger();
      const fields: Record<string, unknown> = {
        requestId: id,
        method,
        url,
        route,
        ...(finished ? { statusCode: status } : { aborted: true }),
        latencyMs: 1.3,
      };
      reference.logger[level](fields, `${method} ${url} ${finished ? status : 'aborted'}`);

      expect(ours.lines).toHaveLength(1);
      expect(timeless(ours.lines[0])).toBe(timeless(reference.lines[0]));
      expect(JSON.parse(ours.lines[0])).toMatchObject({ time: expect.any(Number), url });
    },
  );

  it('writes nothing below the logger level', () => {
    const { logger, lines } = capturingLogger('warn');
    logCompletion(logger, request('GET', 'r'), response(200), line('/x', '/x'));
    expect(lines).toEqual([]);
    logCompletion(logger, request('GET', 'r'), response(429), line('/x', '/x'));
    expect(JSON.parse(lines[0])).toMatchObject({ level: 40, statusCode: 429 });
  });
});

describe('NestLogger', () => {
  /** A Nest Logger of the component `Operators`, writing through the bridge into an array. */
  function nestLogger() {
    const { logger, lines } = capturingLogger('trace');
    const bridge = new NestLogger(logger);
    const component = new Logger('Operators');
    // What the logger given to NestFactory.create does for every Logger of the application.
    Logger.overrideLogger(bridge);
    const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    return { bridge, component, parsed };
  }
  afterEach(() => Logger.overrideLogger(false));

  it("writes the service's one call form, (fields, message), with msg and the component", () => {
    const { component, parsed } = nestLogger();
    component.warn({ err: 'boom' }, 'Could not record when an operator was last seen');
    component.log({ sessions: 3 }, 'Erased personal data past retention');
    component.error({ requestId: 'r1' }, 'Unexpected error');
    component.warn('Redis unreachable');
    expect(parsed()).toMatchObject([
      {
        level: 40,
        context: 'Operators',
        err: 'boom',
        msg: 'Could not record when an operator was last seen',
      },
      { level: 30, context: 'Operators', sessions: 3, msg: 'Erased personal data past retention' },
      { level: 50, context: 'Operators', requestId: 'r1', msg: 'Unexpected error' },
      { level: 40, context: 'Operators', msg: 'Redis unreachable' },
    ]);
  });

  it("writes Nest's own forms: a message and its context, an error with its stack", () => {
    const { bridge, parsed } = nestLogger();
    bridge.log('Mapped {/metrics, GET} route', 'RouterExplorer');
    bridge.error('Something failed', 'Error: Something failed\n    at x', 'ExceptionHandler');
    bridge.error(new Error('thrown'), 'ExceptionHandler');
    expect(parsed()).toMatchObject([
      { level: 20, context: 'RouterExplorer', msg: 'Mapped {/metrics, GET} route' },
      {
        level: 50,
        context: 'ExceptionHandler',
        msg: 'Something failed',
        stack: expect.stringContaining('at x'),
      },
      {
        level: 50,
        context: 'ExceptionHandler',
        msg: 'thrown',
        stack: expect.stringContaining('Error: thrown'),
      },
    ]);
  });
});
