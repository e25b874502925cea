import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CallbackSecretBox,
  callbackSecretKey,
  generateCallbackSecret,
  isCallbackSecret,
} from './callback-secrets.js';

describe('callback secrets', () => {
  it('generates Standard Webhooks secrets of 32 random bytes', () => {
    const a = generateCallbackSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateCallbackSecret()).not.toBe(a);
    expect(isCallbackSecret(a)).toBe(true);
  });

  it.each([
    'whsec_',
    'whsec_short',
    'sk_' + 'A'.repeat(43),
    `whsec_${'A'.repeat(200)}`,
    'whsec_!!!!',
  ])('refuses %j as a secret', (value) => {
    expect(isCallbackSecret(value)).toBe(false);
  });

  it('encrypts so that the stored text holds no trace of the secret, and decrypts it back', () => {
    const box = new CallbackSecretBox(Buffer.alloc(32, 1));
    const secret = generateCallbackSecret();
    const stored = box.encrypt(secret);
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(box.encrypt(secret)).not.toBe(stored); // a new IV each time
    expect(box.decrypt(stored)).toBe(secret);
  });

  it('refuses a value altered at rest, or encrypted under another key', () => {
    const box = new CallbackSecretBox(Buffer.alloc(32, 1));
    const stored = box.encrypt(generateCallbackSecret());
    const parts = stored.split(':');
    parts[3] = Buffer.from('tampered').toString('base64');
    expect(() => box.decrypt(parts.join(':'))).toThrow();
    expect(() => new CallbackSecretBox(Buffer.alloc(32, 2)).decrypt(stored)).toThrow();
  });

  it('keeps a generated key beside a SQLite file, readable only by its owner, and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-key-'));
    try {
      const file = join(dir, 'db', 'gateway.sqlite');
      const first = callbackSecretKey(undefined, file);
      expect(first).toHaveLength(32);
      const keyFile = join(dir, 'db', 'callback-secret.key');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toEqual(first);
      expect(callbackSecretKey(undefined, file)).toEqual(first);
      expect(callbackSecretKey(Buffer.alloc(32, 9), file)).toEqual(Buffer.alloc(32, 9));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
