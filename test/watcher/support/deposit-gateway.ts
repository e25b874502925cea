import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An address as GET /admin/deposit-addresses lists it. */
export interface ListedAddress {
  network: 'evm';
  chainId: number;
  address: string;
  tokenContract?: string;
  decimals: number;
  confirmations: number;
  assignedAt: string;
  sessionFinal: boolean;
}

/** A POST /admin/deposits body the gateway took, and when. */
export interface ReceivedDeposit {
  network: string;
  chainId?: number;
  address: string;
  txid: string;
  index: number;
  asset: string;
  amount: string;
  confirmations: number;
  at: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  status: number;
}

const TXID = /^0x[0-9a-f]{64}$/;
const AMOUNT = /^[1-9][0-9]*$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The gateway's two watcher routes, as decided for the service, on a loopback port: GET
 * /admin/deposit-addresses (cursor pages) and POST /admin/deposits (each accepted body recorded).
 * It checks what the service would: the operator token, the fields of a report, and that the
 * address is one it gave (else 404). It can be stopped and started again on the same port.
 */
export class DepositGateway {
  readonly deposits: ReceivedDeposit[] = [];
  readonly requests: RecordedRequest[] = [];
  /** Bodies refused with 400/404: a correct watcher sends none. */
  readonly refused: unknown[] = [];
  readonly listed: ListedAddress[] = [];
  private server: Server | undefined;

  private constructor(
    readonly token: string,
    private port: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(token: string): Promise<DepositGateway> {
    const gateway = new DepositGateway(token, 0);
    await gateway.restart();
    return gateway;
  }

  /** Lists an address as watched (given now unless told otherwise). */
  watch(
    address: string,
    settlement: { chainId: number; confirmations: number; tokenContract?: string },
    assignedAt = new Date(),
  ): ListedAddress {
    const item: ListedAddress = {
      network: 'evm',
      chainId: settlement.chainId,
      address,
      ...(settlement.tokenContract ? { tokenContract: settlement.tokenContract } : {}),
      decimals: settlement.tokenContract ? 6 : 18,
      confirmations: settlement.confirmations,
      assignedAt: assignedAt.toISOString(),
      sessionFinal: false,
    };
    this.listed.push(item);
    return item;
  }

  /** The reports of one transaction, in the order they came. */
  reportsOf(txid: string, index?: number): ReceivedDeposit[] {
    return this.deposits.filter(
      (d) => d.txid === txid.toLowerCase() && (index === undefined || d.index === index),
    );
  }

  async restart(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops every open connection: the gateway is unreachable. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const answer = (status: number, payload: unknown) => {
      this.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        status,
      });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, errorCode: string, message: string) =>
      answer(status, { errors: [{ type: 'ERROR', errorCode, message }] });

    if (req.headers.authorization !== `Bearer ${this.token}`) {
      return error(401, 'UNAUTHORIZED', 'An operator token is required.');
    }
    if (req.method === 'GET' && url.pathname === '/admin/deposit-addresses') {
      const q = url.searchParams;
      if (q.get('network') !== 'evm' || q.get('state') !== 'watching') {
        return error(400, 'INVALID_PARAMETER', 'network and state');
      }
      const size = Number(q.get('size') ?? 100);
      if (!Number.isInteger(size) || size < 1 || size > 1000) {
        return error(400, 'INVALID_PARAMETER', 'size');
      }
      const chainId = q.get('chainId');
      const items = this.listed.filter(
        (item) => chainId === null || String(item.chainId) === chainId,
      );
      const offset = q.has('cursor') ? Number(Buffer.from(q.get('cursor')!, 'base64url')) : 0;
      const page = items.slice(offset, offset + size);
      const next = offset + size < items.length ? offset + size : undefined;
      return answer(200, {
        payload: page,
        ...(next === undefined
          ? {}
          : { nextCursor: Buffer.from(String(next)).toString('base64url') }),
      });
    }
    if (req.method === 'POST' && url.pathname === '/admin/deposits') {
      let deposit: ReceivedDeposit;
      try {
        deposit = JSON.parse(body) as ReceivedDeposit;
      } catch {
        this.refused.push(body);
        return error(400, 'INVALID_PARAMETER', 'body');
      }
      const fieldsValid =
        deposit.network === 'evm' &&
        (deposit.chainId === undefined || Number.isInteger(deposit.chainId)) &&
        typeof deposit.txid === 'string' &&
        TXID.test(deposit.txid) &&
        Number.isInteger(deposit.index) &&
        deposit.index >= 0 &&
        (deposit.asset === 'native' ||
          (typeof deposit.asset === 'string' && EVM_ADDRESS.test(deposit.asset))) &&
        typeof deposit.amount === 'string' &&
        AMOUNT.test(deposit.amount) &&
        Number.isInteger(deposit.confirmations) &&
        deposit.confirmations >= 0 &&
        typeof deposit.address === 'string';
      if (!fieldsValid) {
        this.refused.push(deposit);
        return error(400, 'INVALID_PARAMETER', 'A field of the deposit is invalid.');
      }
      const given = this.listed.find(
        (item) => item.address.toLowerCase() === deposit.address.toLowerCase(),
      );
      if (!given) {
        this.refused.push(deposit);
        return error(404, 'NOT_FOUND', 'No deposit address like this was given.');
      }
      this.deposits.push({ ...deposit, at: Date.now() });
      return answer(200, {
        payload: [{ ...deposit, counted: true, session: { status: 'PENDING' } }],
      });
    }
    return error(404, 'NOT_FOUND', 'No such route.');
  }
}
