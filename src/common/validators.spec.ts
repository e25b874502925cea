import { asciiUpperCase } from './validators.js';

describe('asciiUpperCase', () => {
  it.each([
    ['ie', 'IE'],
    ['usdt', 'USDT'],
    ['Sol_net-2', 'SOL_NET-2'],
    ['trc20', 'TRC20'],
    ['', ''],
  ])('upper-cases the ASCII letters of %j', (input, expected) => {
    expect(asciiUpperCase(input)).toBe(expected);
  });

  it.each([
    ['ıe', 'ıE'],
    ['uſdt', 'UſDT'],
    ['ſol', 'ſOL'],
    ['ﬀ', 'ﬀ'],
    ['straße', 'STRAßE'],
    ['éur', 'éUR'],
  ])('leaves every other character of %j as it is (%j)', (input, expected) => {
    expect(asciiUpperCase(input)).toBe(expected);
    expect(asciiUpperCase(input)).toHaveLength(input.length);
  });
});
