import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import type { IncomingMessage } from 'node:http';
import { headerValue } from '../common/http/headers.js';
import { rawOf } from '../http/raw.js';

/** Where a request to the demo shop arrived: what the shop needs to call this server itself. */
export interface ShopAddress {
  /** This server at the address and port the connection arrived on: `http://127.0.0.1:3000`. */
  local: string;
  /**
   * The origin the browser used (`Host`), when it names this same server: `localhost` or the
   * address the connection arrived on, and its port. Undefined for any other name.
   */
  browser?: string;
}

/** The demo shop's address of the request (see ShopAddress). */
export const ShopAddressOfRequest = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ShopAddress =>
    shopAddressOf(rawOf<IncomingMessage>(context.switchToHttp().getRequest())),
);

/**
 * The shop calls the gateway, and has its callbacks sent, only at this server's own address:
 * the `Host` a browser sends is taken only when it names that address (or `localhost`), so no
 * request can make the sandbox send anything elsewhere.
 */
export function shopAddressOf(request: IncomingMessage): ShopAddress {
  const address = normalised(request.socket.localAddress ?? '127.0.0.1');
  const port = request.socket.localPort;
  const local = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  const host = headerValue(request.headers, 'host');
  if (host === undefined) return { local };
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return { local };
  }
  const name = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const sameServer =
    Number(url.port || 80) === port &&
    url.pathname === '/' &&
    (name === 'localhost' || (ipaddr.isValid(name) && normalised(name) === address));
  return sameServer ? { local, browser: url.origin } : { local };
}

/** An address as one spelling: IPv4-mapped IPv6 as IPv4, IPv6 compressed. */
function normalised(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}
