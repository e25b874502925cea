import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** The IPv4 address held in two 16-bit groups of an IPv6 address. */
const ipv4Of = (high: number, low: number): IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

const cidr = (range: string) => ipaddr.IPv6.parseCIDR(range);

/**
 * IPv6 forms that carry an IPv4 address a packet ends up at (RFC 4291 mapped and compatible,
 * RFC 6145 translated, RFC 6052 NAT64, RFC 3056 6to4, RFC 4380 Teredo): each is judged by the
 * IPv4 addresses it embeds, so `::127.0.0.1` or `2002:a00:1::` cannot reach what `127.0.0.1` or
 * `10.0.0.1` may not.
 */
const EMBEDDING: { prefix: [IPv6, number]; ipv4s: (parts: number[]) => IPv4[] }[] = [
  { prefix: cidr('::ffff:0:0/96'), ipv4s: (p) => [ipv4Of(p[6], p[7])] },
  { prefix: cidr('::ffff:0:0:0/96'), ipv4s: (p) => [ipv4Of(p[6], p[7])] },
  { prefix: cidr('::/96'), ipv4s: (p) => [ipv4Of(p[6], p[7])] },
  { prefix: cidr('64:ff9b::/96'), ipv4s: (p) => [ipv4Of(p[6], p[7])] },
  { prefix: cidr('2002::/16'), ipv4s: (p) => [ipv4Of(p[1], p[2])] },
  {
    // The server, then the client, whose address is stored with every bit inverted.
    prefix: cidr('2001::/32'),
    ipv4s: (p) => [ipv4Of(p[2], p[3]), ipv4Of(p[6] ^ 0xffff, p[7] ^ 0xffff)],
  },
];

/** IANA's global unicast block: everything else in IPv6 is reserved, local or multicast. */
const GLOBAL_UNICAST = cidr('2000::/3');

const isGlobalIPv4 = (address: IPv4) => address.range() === 'unicast';

function isGlobalIPv6(address: IPv6): boolean {
  const embedding = EMBEDDING.find(({ prefix }) => address.match(prefix));
  if (embedding) return embedding.ipv4s(address.parts).every(isGlobalIPv4);
  if (address.range() !== 'unicast' || !address.match(GLOBAL_UNICAST)) return false;
  // An ISATAP interface identifier (RFC 5214) names an IPv4 tunnel end point inside the prefix's
  // site: refuse one that names a private address.
  const [, , , , flags, marker, high, low] = address.parts;
  const isatap = (flags === 0 || flags === 0x200) && marker === 0x5efe;
  return !isatap || isGlobalIPv4(ipv4Of(high, low));
}

/**
 * True when a callback may not be delivered to this IP address: anything but globally routable
 * unicast, as ipaddr.js classifies it (loopback, private, shared, link-local where cloud metadata
 * services live, unspecified, multicast, broadcast, documentation, benchmarking and reserved
 * ranges), so a merchant's URL cannot turn the gateway into a way into its own network.
 */
export function isForbiddenAddress(address: string): boolean {
  // Only the canonical spellings the resolver hands over are addresses; ipaddr.js would also
  // read `127.1` or `0x7f.0.0.1`, which never come from it.
  const family = isIP(address);
  if (family === 0) return true;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? !isGlobalIPv4(parsed as IPv4) : !isGlobalIPv6(parsed as IPv6);
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
