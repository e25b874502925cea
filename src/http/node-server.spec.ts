import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import pino from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DRAIN_QUIET_MS, NodeServer } from './node-server.js';

const TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 30_000 };
const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

/** Blocks this process's event loop, as a long task or a busy machine would. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('NodeServer.drain', () => {
  let server: Server;
  let node: NodeServer;
  let client: Socket;
  let received: string;
  let failure: string | undefined;
  let closed: Promise<void>;
  let lastResponse: WeakRef<object> | undefined;

  beforeEach(async () => {
    server = createServer((_request, response) => {
      lastResponse = new WeakRef(response);
      response.end('ok');
    });
    node = new NodeServer(server, pino({ level: 'silent' }));
    node.attach(TIMEOUTS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    received = '';
    failure = undefined;
    client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    client.on('error', (error: NodeJS.ErrnoException) => (failure = error.code));
    closed = new Promise((resolve) => client.on('close', () => resolve()));
    await new Promise((resolve) => client.once('connect', resolve));
    client.write(GET);
    await until(() => received.endsWith('ok'));
  });
  afterEach(() => {
    client.destroy();
    server.closeAllConnections();
    server.close();
  });

  const answers = () => received.match(/HTTP\/1\.1 200 /g)?.length ?? 0;

  it('closes a kept-alive connection that stays quiet', async () => {
    const drained = node.drain(Date.now() + 10_000);
    await closed;
    await drained;
    expect({ answers: answers(), failure }).toEqual({ answers: 1, failure: undefined });
  });

  it('answers a request that arrived while the process was stalled past the quiet time', async () => {
    const drained = node.drain(Date.now() + 10_000);
    // The next request reaches the kernel, then nothing runs here for longer than the quiet time
    // (in the event loop's check phase: the timers come next, before the poll phase reads the
    // request). When the checks run again the request is waiting to be read, not missing.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        client.write(GET);
        stall(DRAIN_QUIET_MS + 300);
        resolve();
      }),
    );
    await closed;
    await drained;
    expect({ answers: answers(), failure }).toEqual({ answers: 2, failure: undefined });
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('keeps no answered response alive while its connection stays open', async () => {
    // A full collection, through V8's documented flag (`gc` is exposed to new contexts).
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    await new Promise((resolve) => setImmediate(resolve));
    expect({ open: !client.destroyed, kept: lastResponse?.deref() !== undefined }).toEqual({
      open: true,
      kept: false,
    });
  });
});
