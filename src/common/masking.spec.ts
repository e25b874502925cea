import { maskAccountNumber, redactValidationKey } from './masking.js';

describe('maskAccountNumber', () => {
  it('keeps the first 4 and last 4 characters of longer numbers', () => {
    expect(maskAccountNumber('IE29AIBK93115212345678')).toBe('IE29XXXXXXXXXXXXXX5678');
    expect(maskAccountNumber('123456789')).toBe('1234X6789');
  });

  it('masks all but the last 4 of numbers of 8 characters or fewer', () => {
    expect(maskAccountNumber('12345678')).toBe('XXXX5678');
    expect(maskAccountNumber('123456')).toBe('XX3456');
    expect(maskAccountNumber('1234')).toBe('1234');
    expect(maskAccountNumber('')).toBe('');
  });

  it('counts characters, not UTF-16 units, and is stable when applied twice', () => {
    expect(maskAccountNumber('ÄÖÜ1234567890')).toBe('ÄÖÜ1XXXXX7890');
    const once = maskAccountNumber('IE29AIBK93115212345678');
    expect(maskAccountNumber(once)).toBe(once);
  });
});

describe('redactValidationKey', () => {
  it('shows the first 6 characters and an ellipsis', () => {
    expect(redactValidationKey('vk_demo_successful_4f9c2a7e')).toBe('vk_dem…');
  });

  it('never shows a whole short key', () => {
    expect(redactValidationKey('abcdef')).toBe('abc…');
    expect(redactValidationKey('a')).toBe('…');
  });

  it('counts characters, not UTF-16 units, and never splits a surrogate pair', () => {
    expect(redactValidationKey('ab\u{1F600}cdefghijklmn')).toBe('ab\u{1F600}cde…');
    expect(redactValidationKey('\u{1F600}'.repeat(4))).toBe('\u{1F600}\u{1F600}…');
  });
});
