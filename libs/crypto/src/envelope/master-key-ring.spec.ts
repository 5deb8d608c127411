import { randomBytes } from 'node:crypto';
import { Secret } from '../secret';
import { MasterKeyRing } from './master-key-ring';

const b64 = () => randomBytes(32).toString('base64');

describe('MasterKeyRing', () => {
  it('wraps under the first key and unwraps with any configured key', () => {
    const old = `old:${b64()}`;
    const fresh = `new:${b64()}`;
    const before = MasterKeyRing.parse(old);
    const dataKey = new Secret(randomBytes(32));
    const wrapped = before.wrap(7, dataKey);
    expect(wrapped.masterKeyId).toBe('old');

    const during = MasterKeyRing.parse(`${fresh}\n${old}`);
    expect(during.currentId).toBe('new');
    expect(during.unwrap(7, wrapped).reveal()).toEqual(dataKey.reveal());
    const rewrapped = during.wrap(7, during.unwrap(7, wrapped));
    expect(rewrapped.masterKeyId).toBe('new');

    const after = MasterKeyRing.parse(fresh);
    expect(after.unwrap(7, rewrapped).reveal()).toEqual(dataKey.reveal());
    expect(() => after.unwrap(7, wrapped)).toThrow('wrapped under master key old, which is not configured');
  });

  it('binds a wrapped key to its data key id', () => {
    const ring = MasterKeyRing.parse(`m1:${b64()}`);
    const wrapped = ring.wrap(1, new Secret(randomBytes(32)));
    expect(() => ring.unwrap(2, wrapped)).toThrow('authentication tag');
  });

  it('detects a tampered wrapped key', () => {
    const ring = MasterKeyRing.parse(`m1:${b64()}`);
    const wrapped = ring.wrap(1, new Secret(randomBytes(32)));
    wrapped.wrappedKey[wrapped.wrappedKey.length - 20] ^= 0x01;
    expect(() => ring.unwrap(1, wrapped)).toThrow('authentication tag');
  });

  it('rejects bad configuration without echoing key material', () => {
    const material = b64();
    const cases: [string, RegExp][] = [
      ['', /holds no key/],
      [material, /entry 1 must be <id>:<base64 key>/],
      [`m1:${material},m1:${b64()}`, /names master key m1 twice/],
      [`m1:${randomBytes(16).toString('base64')}`, /must be 32 bytes/],
      [`m1:${material.slice(0, 10)}!!`, /is not base64/],
    ];
    for (const [text, message] of cases) {
      let error: unknown;
      try {
        MasterKeyRing.parse(text);
      } catch (err) {
        error = err;
      }
      expect(String(error)).toMatch(message);
      expect(String(error)).not.toContain(material.slice(0, 10));
    }
  });

  it('shows no key material when inspected', () => {
    const material = b64();
    const ring = MasterKeyRing.parse(`m1:${material}`);
    const { inspect } = jest.requireActual<typeof import('node:util')>('node:util');
    const hex = Buffer.from(material, 'base64').toString('hex');
    const shown = `${inspect(ring, { depth: 10, showHidden: true })}${JSON.stringify(ring)}`;
    expect(shown).not.toContain(material);
    expect(shown).not.toContain(hex.slice(0, 16));
  });
});
