import { tokenContractOf } from './chain-address.js';

/** EIP-55's test cases: all upper case, all lower case, and mixed, each its own checksum form. */
const EIP55_VECTORS = [
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

const USDT_ETHEREUM = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('token contracts', () => {
  it.each(EIP55_VECTORS)('takes %s on evm and gives its EIP-55 form back', (address) => {
    expect(tokenContractOf('evm', address)).toBe(address);
    expect(tokenContractOf('evm', address.toLowerCase())).toBe(address);
    expect(tokenContractOf('evm', `0x${address.slice(2).toUpperCase()}`)).toBe(address);
  });

  it('takes USDT on Ethereum in any one case, and refuses a wrong mixed case', () => {
    expect(tokenContractOf('evm', USDT_ETHEREUM.toLowerCase())).toBe(USDT_ETHEREUM);
    const wrongCase = USDT_ETHEREUM.replace('dAC17', 'Dac17');
    expect(tokenContractOf('evm', wrongCase)).toBeUndefined();
  });

  it.each([
    ['no 0x', USDT_ETHEREUM.slice(2)],
    ['0X', `0X${USDT_ETHEREUM.slice(2)}`],
    ['39 digits', USDT_ETHEREUM.slice(0, -1)],
    ['41 digits', `${USDT_ETHEREUM}0`],
    ['a non-hex digit', `${USDT_ETHEREUM.slice(0, -1)}g`],
    ['the zero address', `0x${'0'.repeat(40)}`],
    ['white space', ` ${USDT_ETHEREUM}`],
    ['a TRON address', USDT_TRON],
  ])('refuses an evm contract with %s', (_, text) => {
    expect(tokenContractOf('evm', text)).toBeUndefined();
  });

  it('takes USDT on TRON, and refuses a mistyped or foreign address', () => {
    expect(tokenContractOf('tron', USDT_TRON)).toBe(USDT_TRON);
    expect(tokenContractOf('tron', USDT_TRON.slice(0, -1) + 'u')).toBeUndefined();
    expect(tokenContractOf('tron', USDT_TRON.toLowerCase())).toBeUndefined();
    expect(tokenContractOf('tron', USDT_ETHEREUM)).toBeUndefined();
    // A valid base58check address of bitcoin (version 0x00), not TRON's 0x41.
    expect(tokenContractOf('tron', '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA')).toBeUndefined();
  });

  it('refuses any token contract on bitcoin', () => {
    expect(tokenContractOf('bitcoin', USDT_ETHEREUM)).toBeUndefined();
    expect(tokenContractOf('bitcoin', USDT_TRON)).toBeUndefined();
  });
});
