import { randomBytes } from 'node:crypto';
import { Fingerprinter } from './fingerprint';
import { Secret } from './secret';

const CARD = '5123450000000008';

describe('Fingerprinter', () => {
  const key = randomBytes(32).toString('base64');
  const fingerprinter = Fingerprinter.fromConfig(key);

  it('is stable for one identifier in one scope', () => {
    expect(fingerprinter.fingerprint('Test1000', 'CARD', CARD)).toEqual(fingerprinter.fingerprint('Test1000', 'CARD', CARD));
    expect(fingerprinter.fingerprint('Test1000', 'CARD', CARD)).toHaveLength(32);
  });

  it('differs across identifiers, kinds and scopes', () => {
    const base = fingerprinter.fingerprint('Test1000', 'CARD', CARD);
    expect(fingerprinter.fingerprint('Test1000', 'CARD', '5123450000000009')).not.toEqual(base);
    expect(fingerprinter.fingerprint('Test1000', 'PROVIDER_A', CARD)).not.toEqual(base);
    expect(fingerprinter.fingerprint('Test1001', 'CARD', CARD)).not.toEqual(base);
  });

  it('is keyed: a plain hash or another key cannot reproduce it', () => {
    const other = new Fingerprinter(new Secret(randomBytes(32)));
    expect(other.fingerprint('Test1000', 'CARD', CARD)).not.toEqual(fingerprinter.fingerprint('Test1000', 'CARD', CARD));
    const { createHash } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    expect(createHash('sha256').update(CARD).digest()).not.toEqual(fingerprinter.fingerprint('Test1000', 'CARD', CARD));
  });

  it('refuses short keys and does not echo bad key material', () => {
    expect(() => new Fingerprinter(new Secret(randomBytes(16)))).toThrow('at least 32 bytes');
    expect(() => Fingerprinter.fromConfig('not base64 !!')).toThrow(/VAULT_FINGERPRINT_KEY is not base64$/);
  });
});
