import { hasPlainHost, isHostName } from './host-names.js';

describe('host names and URL hosts', () => {
  it.each(['localhost', 'shop.example', 'a-b.c-d.example', 'xn--exmple-cua.example', '1a.example'])(
    'takes the name %s',
    (name) => expect(isHostName(name)).toBe(true),
  );

  it.each([
    '',
    '*',
    '*.example',
    'a_b.example',
    '-a.example',
    'a-.example',
    'a..b',
    'a.',
    '999.1.1.1',
    `${'a'.repeat(64)}.example`,
  ])('refuses %j as a name', (name) => expect(isHostName(name)).toBe(false));

  it.each([
    ['https://shop.example/x', true],
    ['https://203.0.113.9/x', true],
    ['https://[2001:db8::1]/x', true],
    ['https://0x7f.1/x', true],
    ['https://*/x', false],
    ['https://shop.example;sandbox/', false],
    ['https://a{b}.example/', false],
    ['https://a"b.example/', false],
  ])('judges the host of %s: %p', (url, plain) => expect(hasPlainHost(new URL(url))).toBe(plain));
});
