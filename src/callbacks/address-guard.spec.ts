import type { LookupAddress } from 'node:dns';
import { allowedAddressLookup, isForbiddenAddress } from './address-guard.js';
import { CallbackSender } from './callback-sender.js';
import type { CallbackRecord } from './callback.repository.js';

describe('isForbiddenAddress', () => {
  describe('IPv4', () => {
    it.each([
      ['0.0.0.0', 'this network 0/8'],
      ['0.1.2.3', 'this network 0/8'],
      ['10.1.2.3', 'private 10/8'],
      ['100.64.0.1', 'shared 100.64/10'],
      ['100.127.255.254', 'shared 100.64/10'],
      ['127.0.0.1', 'loopback 127/8'],
      ['127.255.0.9', 'loopback 127/8'],
      ['169.254.169.254', 'link-local 169.254/16 (cloud metadata)'],
      ['172.16.0.1', 'private 172.16/12'],
      ['172.31.255.255', 'private 172.16/12'],
      ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
      ['192.0.2.1', 'documentation 192.0.2/24'],
      ['192.88.99.1', '6to4 relay anycast 192.88.99/24'],
      ['192.168.1.1', 'private 192.168/16'],
      ['198.18.0.1', 'benchmarking 198.18/15'],
      ['198.19.255.1', 'benchmarking 198.18/15'],
      ['198.51.100.7', 'documentation 198.51.100/24'],
      ['203.0.113.9', 'documentation 203.0.113/24'],
      ['224.0.0.1', 'multicast 224/4'],
      ['239.255.255.250', 'multicast 224/4'],
      ['240.0.0.1', 'reserved 240/4'],
      ['255.255.255.255', 'broadcast'],
    ])('refuses %s (%s)', (address) => {
      expect(isForbiddenAddress(address)).toBe(true);
    });

    it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '198.20.0.1'])(
      'allows the public address %s',
      (address) => {
        expect(isForbiddenAddress(address)).toBe(false);
      },
    );
  });

  describe('IPv6', () => {
    it.each([
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['fe80::1', 'link-local fe80::/10'],
      ['fe80::1%eth0', 'link-local with a zone'],
      ['febf::1', 'link-local fe80::/10'],
      ['fec0::1', 'site-local fec0::/10'],
      ['fc00::1', 'unique local fc00::/7'],
      ['fd00:ec2::254', 'unique local (cloud metadata)'],
      ['ff02::1', 'multicast'],
      ['ff0e::101', 'multicast'],
      ['2001:db8::1', 'documentation 2001:db8::/32'],
      ['3fff::1', 'documentation 3fff::/20'],
      ['2001:2::1', 'benchmarking 2001:2::/48'],
      ['2001:10::1', 'ORCHID 2001:10::/28'],
      ['2001:20::1', 'ORCHIDv2 2001:20::/28'],
      ['100::1', 'discard 100::/64'],
      ['64:ff9b:1::808:808', 'NAT64 local use 64:ff9b:1::/48'],
      ['5f00::1', 'segment routing 5f00::/16'],
      ['4000::1', 'outside the global unicast block 2000::/3'],
      ['e000::1', 'outside the global unicast block 2000::/3'],
    ])('refuses %s (%s)', (address) => {
      expect(isForbiddenAddress(address)).toBe(true);
    });

    it.each(['2606:4700:4700::1111', '2a00:1450:4001:82b::200e', '2001:4860:4860::8888'])(
      'allows the global unicast address %s',
      (address) => {
        expect(isForbiddenAddress(address)).toBe(false);
      },
    );
  });

  describe('IPv6 forms that embed an IPv4 address, judged as that address', () => {
    it.each([
      ['::ffff:127.0.0.1', 'IPv4-mapped'],
      ['::ffff:7f00:1', 'IPv4-mapped, hexadecimal'],
      ['::ffff:10.0.0.1', 'IPv4-mapped'],
      ['::ffff:169.254.169.254', 'IPv4-mapped'],
      ['::127.0.0.1', 'IPv4-compatible'],
      ['::7f00:1', 'IPv4-compatible, hexadecimal'],
      ['::a00:1', 'IPv4-compatible'],
      ['::c0a8:101', 'IPv4-compatible'],
      ['::ffff:0:127.0.0.1', 'IPv4-translated'],
      ['::ffff:0:a9fe:a9fe', 'IPv4-translated'],
      ['64:ff9b::127.0.0.1', 'NAT64'],
      ['64:ff9b::a00:1', 'NAT64'],
      ['64:ff9b::a9fe:a9fe', 'NAT64'],
      ['2002:7f00:1::', '6to4'],
      ['2002:a00:1::1', '6to4'],
      ['2002:c0a8:101:1::1', '6to4'],
      ['2002:a9fe:a9fe::', '6to4'],
      // Teredo: the server in groups 3-4, the client inverted in the last two groups.
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1'],
      ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo, client 10.0.0.1'],
      ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'Teredo, server 10.0.0.1'],
      ['2001:0:7f00:1:8000:63bf:f7f7:f7f7', 'Teredo, server 127.0.0.1'],
      ['2a00:1450::5efe:10.0.0.1', 'ISATAP, private'],
      ['2a00:1450::200:5efe:a9fe:a9fe', 'ISATAP, link-local'],
      ['fe80::5efe:8.8.8.8', 'ISATAP in a link-local prefix'],
    ])('refuses %s (%s)', (address) => {
      expect(isForbiddenAddress(address)).toBe(true);
    });

    it.each([
      ['::ffff:8.8.8.8', 'IPv4-mapped'],
      ['::8.8.8.8', 'IPv4-compatible'],
      ['::ffff:0:8.8.8.8', 'IPv4-translated'],
      ['64:ff9b::808:808', 'NAT64'],
      ['2002:808:808::1', '6to4'],
      ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, server 65.54.227.120, client 8.8.8.8'],
      ['2a00:1450::200:5efe:808:808', 'ISATAP, public'],
    ])('allows %s (%s of a public address)', (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    });
  });

  it.each(['not-an-address', '', '127.1', '0x7f.0.0.1', '2130706433', '::1/128'])(
    'refuses %j, which is not an address the resolver hands over',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(true);
    },
  );
});

describe('allowedAddressLookup', () => {
  const lookup = (hostname: string) =>
    new Promise<{ error: (Error & { code?: string }) | null; addresses: LookupAddress[] }>(
      (resolve) =>
        allowedAddressLookup(hostname, { all: true }, (error, addresses) =>
          resolve({ error, addresses: addresses as unknown as LookupAddress[] }),
        ),
    );

  // The resolver reads these spellings as 127.0.0.1 without asking a DNS server.
  it.each(['localhost', '127.0.0.1', '127.1', '0x7f.0.0.1', '2130706433', '::1'])(
    'hands over no address for %s',
    async (hostname) => {
      const { error } = await lookup(hostname);
      expect(error?.code).toBe('ERR_FORBIDDEN_ADDRESS');
    },
  );
});

describe('CallbackSender in production', () => {
  const sender = new CallbackSender(
    {
      enabled: true,
      timeoutMs: 1000,
      retrySchedule: [60],
      secretKey: undefined,
      allowPrivateNetworks: false,
    },
    true,
  );
  afterAll(() => sender.close());

  const callbackTo = (url: string) =>
    ({ webhookId: 'msg_test', url, body: '{}' }) as unknown as CallbackRecord;
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

  // The URL parser reads every IPv4 spelling as the address connected to; an address in the URL
  // is judged before any connection, a name after its lookup. Only loopback targets here, so a
  // regression could never send anything off this machine.
  it.each([
    'https://127.1/cb',
    'https://0x7f.0.0.1/cb',
    'https://2130706433/cb',
    'https://0177.0.0.1/cb',
    'https://[::ffff:7f00:1]/cb',
    'https://[::1]/cb',
    'https://localhost/cb',
  ])('never connects to %s', async (url) => {
    const result = await sender.send(callbackTo(url), [secret]);
    expect(result).toMatchObject({ outcome: 'error', error: 'the address may not be reached' });
  });
});
