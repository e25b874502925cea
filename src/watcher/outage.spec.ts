import pino from 'pino';
import { Writable } from 'node:stream';
import { Outage } from './outage.js';

function recorder() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('Outage', () => {
  it('writes one line when calls start failing and one when a call succeeds again', async () => {
    const { lines, logger } = recorder();
    let now = 1_000;
    const outage = new Outage(logger, 'node', 'http://127.0.0.1:8545', () => now);
    outage.succeeded();
    for (let attempt = 0; attempt < 5; attempt++) outage.failed(new Error('connect ECONNREFUSED'));
    now += 4_500;
    outage.succeeded();
    outage.succeeded();
    outage.failed(new Error('socket hang up'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(
      lines.map(({ msg, dependency, url, err, downMs, failedCalls }) => ({
        msg,
        dependency,
        url,
        err,
        downMs,
        failedCalls,
      })),
    ).toEqual([
      {
        msg: 'Node unavailable: retrying with backoff',
        dependency: 'node',
        url: 'http://127.0.0.1:8545',
        err: 'connect ECONNREFUSED',
        downMs: undefined,
        failedCalls: undefined,
      },
      {
        msg: 'Node available again',
        dependency: 'node',
        url: 'http://127.0.0.1:8545',
        err: undefined,
        downMs: 4_500,
        failedCalls: 5,
      },
      {
        msg: 'Node unavailable: retrying with backoff',
        dependency: 'node',
        url: 'http://127.0.0.1:8545',
        err: 'socket hang up',
        downMs: undefined,
        failedCalls: undefined,
      },
    ]);
  });
});
