import { plainToInstance } from 'class-transformer';
import {
  IsBoolean,
  IsEthereumAddress,
  IsIn,
  IsInt,
  IsISO8601,
  Max,
  Min,
  ValidateIf,
  validateSync,
} from 'class-validator';
import type { Logger } from 'pino';
import type { Outage } from './outage.js';

/** An address the gateway gave out on this chain and wants watched, as GET /admin/deposit-addresses lists it. */
export class WatchedAddress {
  @IsIn(['evm'])
  network: 'evm';

  @IsInt()
  chainId: number;

  @IsEthereumAddress()
  address: string;

  /** The quoted asset's contract; absent for the network's own coin. */
  @ValidateIf((item: WatchedAddress) => item.tokenContract !== undefined)
  @IsEthereumAddress()
  tokenContract?: string;

  /** Confirmations the gateway requires before a deposit counts. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  confirmations: number;

  /** When the address was first given: nothing sent to it before then belongs to its checkout. */
  @IsISO8601({ strict: true })
  assignedAt: string;

  @ValidateIf((item: WatchedAddress) => item.sessionFinal !== undefined)
  @IsBoolean()
  sessionFinal?: boolean;
}

/** What POST /admin/deposits is told of one transfer. */
export interface DepositReport {
  network: 'evm';
  chainId: number;
  address: string;
  /** The transaction hash, lower case. */
  txid: string;
  /** The log index of a token transfer; 0 for a plain coin transfer. */
  index: number;
  /** The token contract, or `native` for the network's own coin. */
  asset: string;
  /** Atomic units, a decimal integer string. */
  amount: string;
  /** head − block + 1; 0 once the transfer's block has left the chain. */
  confirmations: number;
}

/** What became of a report: taken, or refused for good (retrying would be refused again). */
export type ReportOutcome = 'accepted' | 'refused';

/** The gateway could not be reached, or could not take the request now; tried again later. */
export class GatewayUnavailable extends Error {}

/** Addresses asked for per page: the route's largest page. */
const PAGE_SIZE = 1000;
const REQUEST_TIMEOUT_MS = 10_000;

/** The two routes of the gateway a watcher uses, with the operator token of role `payments`. */
export class GatewayClient {
  calls = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly outage: Outage,
    private readonly logger: Logger,
  ) {}

  /**
   * The addresses to watch on the chain, a page (at most 1000) at a time, so that the watcher
   * holds one page whatever their number. An entry the watcher cannot read is left out (and
   * counted in one line); the others are still watched.
   */
  async *watchedAddresses(chainId: number): AsyncGenerator<WatchedAddress[]> {
    let cursor: string | undefined;
    let unreadable = 0;
    do {
      const query = new URLSearchParams({
        network: 'evm',
        chainId: String(chainId),
        state: 'watching',
        size: String(PAGE_SIZE),
      });
      if (cursor !== undefined) query.set('cursor', cursor);
      const page = await this.request('GET', `/admin/deposit-addresses?${query}`);
      if (!page.ok) throw this.unavailable(page.status, page.body, 'deposit-addresses');
      const { payload, nextCursor } = page.body as { payload?: unknown; nextCursor?: unknown };
      if (!Array.isArray(payload) || (nextCursor !== undefined && typeof nextCursor !== 'string')) {
        throw this.unavailable(page.status, page.body, 'deposit-addresses');
      }
      const addresses: WatchedAddress[] = [];
      for (const raw of payload) {
        const item = readWatchedAddress(raw);
        if (item && item.chainId === chainId) addresses.push(item);
        else unreadable += 1;
      }
      yield addresses;
      cursor = nextCursor;
    } while (cursor !== undefined);
    if (unreadable > 0) {
      this.logger.warn({ unreadable }, 'Gateway listed addresses the watcher cannot read: skipped');
    }
  }

  /** Tells the gateway of a transfer; idempotent per (txid, index), so a repeat is harmless. */
  async report(deposit: DepositReport): Promise<ReportOutcome> {
    const answer = await this.request('POST', '/admin/deposits', deposit);
    if (answer.ok) return 'accepted';
    if (answer.status === 400 || answer.status === 404 || answer.status === 422) {
      // The gateway will not take this report however often it is sent (an address it never
      // gave, a field it refuses): said once, then dropped.
      this.logger.error(
        {
          status: answer.status,
          errors: errorsOf(answer.body),
          txid: deposit.txid,
          index: deposit.index,
          address: deposit.address,
        },
        'Gateway refused a deposit report',
      );
      return 'refused';
    }
    throw this.unavailable(answer.status, answer.body, 'deposits');
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ ok: boolean; status: number; body: unknown }> {
    this.calls += 1;
    let status: number;
    let parsed: unknown;
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      status = response.status;
      const text = await response.text();
      parsed = parseJson(text);
    } catch (error) {
      this.outage.failed(error);
      throw new GatewayUnavailable('gateway unreachable', { cause: error });
    }
    const ok = status >= 200 && status < 300;
    // An answer that says the gateway cannot serve the watcher now is part of an outage too.
    if (ok || status === 400 || status === 404 || status === 422) this.outage.succeeded();
    return { ok, status, body: parsed };
  }

  private unavailable(status: number, body: unknown, route: string): GatewayUnavailable {
    const reason =
      status >= 200 && status < 300
        ? `unexpected answer from ${route}`
        : `HTTP ${status} from ${route}${codesOf(body)}`;
    const error = new GatewayUnavailable(reason);
    this.outage.failed(error);
    return error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // a proxy's HTML error page, say: the status tells what happened
  }
}

function readWatchedAddress(raw: unknown): WatchedAddress | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const item = plainToInstance(WatchedAddress, raw);
  return validateSync(item).length === 0 ? item : undefined;
}

function errorsOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && 'errors' in body ? body.errors : undefined;
}

function codesOf(body: unknown): string {
  const errors = errorsOf(body);
  if (!Array.isArray(errors)) return '';
  const codes = errors
    .map((error: { errorCode?: unknown }) => error?.errorCode)
    .filter((code): code is string => typeof code === 'string');
  return codes.length > 0 ? ` (${codes.join(', ')})` : '';
}
