import { paymentUri } from './payment-uri.js';

const BTC_ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const EVM_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const TRON_ADDRESS = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const USDT_ETHEREUM = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('payment URIs', () => {
  it.each([
    [30551n, '0.00030551'],
    [1n, '0.00000001'],
    [100000000n, '1'],
    [2100000000000000n, '21000000'],
  ])('asks bitcoin for %s satoshi in BTC (BIP21)', (amount, btc) => {
    expect(paymentUri({ network: 'bitcoin', address: BTC_ADDRESS, amount, decimals: 8 })).toBe(
      `bitcoin:${BTC_ADDRESS}?amount=${btc}`,
    );
  });

  it("asks an EVM chain's coin in wei (EIP-681)", () => {
    const uri = paymentUri({
      network: 'evm',
      address: EVM_ADDRESS,
      amount: 50000000000000000n,
      decimals: 18,
      chainId: 1,
    });
    expect(uri).toBe(`ethereum:${EVM_ADDRESS}@1?value=50000000000000000`);
  });

  it("asks an EVM token's transfer to the address in atomic units, the contract checksummed", () => {
    const uri = paymentUri({
      network: 'evm',
      address: EVM_ADDRESS,
      amount: 10712346n,
      decimals: 6,
      chainId: 56,
      tokenContract: USDT_ETHEREUM.toLowerCase(),
    });
    expect(uri).toBe(
      `ethereum:${USDT_ETHEREUM}@56/transfer?address=${EVM_ADDRESS}&uint256=10712346`,
    );
  });

  it('gives TRON the address alone, for its coin and its tokens', () => {
    expect(paymentUri({ network: 'tron', address: TRON_ADDRESS, amount: 5n, decimals: 6 })).toBe(
      TRON_ADDRESS,
    );
    expect(
      paymentUri({
        network: 'tron',
        address: TRON_ADDRESS,
        amount: 10712346n,
        decimals: 6,
        tokenContract: USDT_TRON,
      }),
    ).toBe(TRON_ADDRESS);
  });

  const coin = {
    network: 'evm',
    address: EVM_ADDRESS,
    amount: 1n,
    decimals: 18,
    chainId: 1,
  } as const;
  it.each([
    ['no amount', { ...coin, amount: 0n }],
    ['a negative amount', { ...coin, amount: -1n }],
    ['no chain id on evm', { ...coin, chainId: undefined }],
    ['chain id 0', { ...coin, chainId: 0 }],
    ['a fractional chain id', { ...coin, chainId: 1.5 }],
    ['a chain id on bitcoin', { ...coin, network: 'bitcoin', address: BTC_ADDRESS, decimals: 8 }],
    ["the coin with a token's decimals", { ...coin, decimals: 6 }],
    [
      'bitcoin with other decimals',
      { network: 'bitcoin', address: BTC_ADDRESS, amount: 1n, decimals: 18 },
    ],
    [
      'a token on bitcoin',
      {
        network: 'bitcoin',
        address: BTC_ADDRESS,
        amount: 1n,
        decimals: 8,
        tokenContract: USDT_ETHEREUM,
      },
    ],
    [
      'a wrongly checksummed contract',
      { ...coin, decimals: 6, tokenContract: USDT_ETHEREUM.replace('dAC', 'Dac') },
    ],
    ['a TRON contract on evm', { ...coin, decimals: 6, tokenContract: USDT_TRON }],
    ['an address that would add a parameter', { ...coin, address: `${EVM_ADDRESS}&value=1` }],
    ['an empty address', { ...coin, address: '' }],
  ])('refuses %s', (_, request) => {
    expect(() => paymentUri(request as Parameters<typeof paymentUri>[0])).toThrow(RangeError);
  });

  it('says what a token contract looks like on the network', () => {
    const token = { ...coin, decimals: 6, tokenContract: USDT_TRON };
    expect(() => paymentUri(token)).toThrow(
      'A token contract on EVM is 0x and 40 hexadecimal digits, EIP-55 checksummed when in mixed case',
    );
    const onBitcoin = {
      network: 'bitcoin',
      address: BTC_ADDRESS,
      amount: 1n,
      decimals: 8,
    } as const;
    expect(() => paymentUri({ ...onBitcoin, tokenContract: USDT_ETHEREUM })).toThrow(
      'Bitcoin has no token contracts',
    );
  });
});
