import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  path: string;
  webhookId: string;
  timestamp: string;
  signature: string;
  body: string;
  at: number;
}

/** What the receiver does with a request to a path: answer with a status, or never answer. */
export type Behaviour = number | 'hang';

/**
 * A merchant's callback endpoint on loopback: records every request, answers as told per path
 * (200 unless told otherwise), and verifies signatures with the Standard Webhooks reference
 * library, as a merchant would.
 */
export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  /** Requests of one webhook id being answered at the same moment, at most. */
  maxConcurrentPerId = 0;
  private readonly behaviours = new Map<string, Behaviour[]>();
  private readonly open = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server | TlsServer,
    readonly url: string,
  ) {}

  /**
   * Listens on `port` (a free one when 0), over https with `tls` (a key and certificate for
   * 127.0.0.1: what a gateway in production delivers to), plain http without.
   */
  static async start(
    port = 0,
    tls?: { key: string | Buffer; cert: string | Buffer },
  ): Promise<WebhookReceiver> {
    // The server needs its receiver, which needs the server's port: bind them after listening.
    const late: { receiver?: WebhookReceiver } = {};
    const handler = (req: IncomingMessage, res: ServerResponse) => late.receiver!.handle(req, res);
    const server = tls ? createTlsServer(tls, handler) : createServer(handler);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const { port: bound } = server.address() as AddressInfo;
    late.receiver = new WebhookReceiver(server, `${tls ? 'https' : 'http'}://127.0.0.1:${bound}`);
    return late.receiver;
  }

  /** The answers to give to the next requests of a path, in order (then 200). */
  answer(path: string, ...behaviours: Behaviour[]): void {
    this.behaviours.set(path, behaviours);
  }

  /** True when the delivery carries a valid signature for this secret (and a fresh timestamp). */
  verifies(delivery: Delivery, secret: string): boolean {
    try {
      new Webhook(secret).verify(delivery.body, {
        'webhook-id': delivery.webhookId,
        'webhook-timestamp': delivery.timestamp,
        'webhook-signature': delivery.signature,
      });
      return true;
    } catch {
      return false;
    }
  }

  to(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  async waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) {
        throw new Error(
          `receiver: condition not met in ${timeoutMs} ms (${this.deliveries.length} deliveries)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery: Delivery = {
        path: (req.url ?? '/').split('?')[0],
        webhookId: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      this.deliveries.push(delivery);
      const open = (this.open.get(delivery.webhookId) ?? 0) + 1;
      this.open.set(delivery.webhookId, open);
      this.maxConcurrentPerId = Math.max(this.maxConcurrentPerId, open);
      res.on('close', () =>
        this.open.set(delivery.webhookId, (this.open.get(delivery.webhookId) ?? 1) - 1),
      );
      const behaviour = this.behaviours.get(delivery.path)?.shift() ?? 200;
      if (behaviour === 'hang') {
        this.hanging.add(res);
        return;
      }
      res.writeHead(behaviour, { 'content-type': 'text/plain' }).end('ok');
    });
  }
}
