import type { IncomingMessage, ServerResponse } from 'node:http';
import pino from 'pino';
import { logCompletion } from './logging.js';

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
