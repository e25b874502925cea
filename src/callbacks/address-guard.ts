import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a callback may not reach in production: loopback, private, link-local (cloud
 * metadata services live there: 169.254.169.254, fd00:ec2::254), unspecified, shared, multicast
 * and reserved ranges. A merchant's URL must not turn the gateway into a way into its own network.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** True when a callback may not be delivered to this IP address. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return FORBIDDEN.check(mapped[1], 'ipv4');
    return FORBIDDEN.check(address, 'ipv6');
  }
  return FORBIDDEN.check(address, 'ipv4');
}

export class ForbiddenAddressError extends Error {
  readonly code = 'ERR_FORBIDDEN_ADDRESS';
}

/**
 * A DNS lookup for the HTTP client that only ever hands over an allowed address: the address
 * judged is the one connected to, so a name cannot resolve to one address when checked and
 * another when used.
 */
export const allowedAddressLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const allowed = (addresses as LookupAddress[]).filter((a) => !isForbiddenAddress(a.address));
    if (allowed.length === 0) {
      return callback(
        new ForbiddenAddressError(`${hostname} resolves only to addresses callbacks may not reach`),
        '',
        0,
      );
    }
    if (options.all) return callback(null, allowed as unknown as string, 0);
    callback(null, allowed[0].address, allowed[0].family);
  });
};
