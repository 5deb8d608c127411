import { randomBytes } from 'node:crypto';
import { Secret } from '../secret';
import { DecryptionError } from './aes-gcm';
import { SealingKeyRing } from './sealing-key-ring';

const key = () => randomBytes(32).toString('base64');

describe('SealingKeyRing', () => {
  it('seals under the first key and opens with any configured key, so keys rotate without re-sealing at once', () => {
    const old = `w1:${key()}`;
    const fresh = `w2:${key()}`;
    const sealed = SealingKeyRing.parse(old, 'KEYS').seal(new Secret('s3cret-value'), 'notification-secret:M1');
    expect(SealingKeyRing.keyIdOf(sealed)).toBe('w1');

    const rotated = SealingKeyRing.parse(`${fresh},${old}`, 'KEYS');
    expect(rotated.open(sealed, 'notification-secret:M1').reveal()).toBe('s3cret-value');
    expect(SealingKeyRing.keyIdOf(rotated.seal(new Secret('x'), 'c'))).toBe('w2');
    expect(() => SealingKeyRing.parse(fresh, 'KEYS').open(sealed, 'notification-secret:M1')).toThrow(/key w1, which is not configured/);
  });

  it('never shows the plaintext in the sealed text and seals the same value differently each time', () => {
    const ring = SealingKeyRing.parse(`k:${key()}`, 'KEYS');
    const a = ring.seal(new Secret('visible-if-broken'), 'c');
    const b = ring.seal(new Secret('visible-if-broken'), 'c');
    expect(a).not.toEqual(b);
    expect(Buffer.from(a, 'base64url').toString('latin1')).not.toContain('visible-if-broken');
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('binds the sealed value to its context: another merchant cannot use it', () => {
    const ring = SealingKeyRing.parse(`k:${key()}`, 'KEYS');
    const sealed = ring.seal(new Secret('v'), 'notification-secret:M1');
    expect(() => ring.open(sealed, 'notification-secret:M2')).toThrow(DecryptionError);
  });

  it('detects tampering and malformed input', () => {
    const ring = SealingKeyRing.parse(`k:${key()}`, 'KEYS');
    const bytes = Buffer.from(ring.seal(new Secret('v'), 'c'), 'base64url');
    bytes[bytes.length - 1] ^= 1;
    expect(() => ring.open(bytes.toString('base64url'), 'c')).toThrow('authentication tag');
    expect(() => ring.open('not sealed!', 'c')).toThrow(DecryptionError);
    expect(() => ring.open('AAAA', 'c')).toThrow(DecryptionError);
  });
});
