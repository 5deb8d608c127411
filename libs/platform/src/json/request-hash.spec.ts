import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Secret } from '@gateway/crypto';
import { ConfigError } from '../config/load-config';
import { canonicalJson } from './sorted-json';
import { RequestHasher } from './request-hash';

const KEY = randomBytes(32);
const hasher = RequestHasher.withKey(new Secret(KEY));

describe('RequestHasher', () => {
  it('is the same for the same body in another key order and with another correlationId', () => {
    const a = hasher.hash({ apiOperation: 'VERIFY', order: { currency: 'USD', amount: '1.00' }, correlationId: 'a' });
    const b = hasher.hash({ order: { amount: '1.00', currency: 'USD' }, apiOperation: 'VERIFY', correlationId: 'b' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is the same for objects inside arrays in another key order (line items), and differs with the array in another order', () => {
    const a = hasher.hash({ order: { item: [{ name: 'a', quantity: '1', unitPrice: '1.00' }, { name: 'b', quantity: '2', unitPrice: '2.00' }] } });
    const b = hasher.hash({ order: { item: [{ unitPrice: '1.00', quantity: '1', name: 'a' }, { quantity: '2', unitPrice: '2.00', name: 'b' }] } });
    const swapped = hasher.hash({ order: { item: [{ name: 'b', quantity: '2', unitPrice: '2.00' }, { name: 'a', quantity: '1', unitPrice: '1.00' }] } });
    expect(a).toBe(b);
    expect(a).not.toBe(swapped);
  });

  it('differs when any value differs', () => {
    const a = hasher.hash({ transaction: { amount: '10.00' } });
    const b = hasher.hash({ transaction: { amount: '10.01' } });
    expect(a).not.toBe(b);
  });

  it('is HMAC-SHA256 under the key of the canonical body without correlationId, never its plain sha256', () => {
    const body = {
      apiOperation: 'VERIFY',
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', securityCode: '100', expiry: { month: '1', year: '39' } } } },
      correlationId: 'c-1',
    };
    const { correlationId: _transient, ...rest } = body;
    const canonical = canonicalJson(rest);
    expect(hasher.hash(body)).toBe(createHmac('sha256', KEY).update(canonical).digest('hex'));
    expect(hasher.hash(body)).not.toBe(createHash('sha256').update(canonical).digest('hex'));
  });

  it('gives another hash for the same body under another key', () => {
    const body = { apiOperation: 'PAY', order: { amount: '5.00', currency: 'EUR' } };
    const other = RequestHasher.withKey(new Secret(randomBytes(32)));
    expect(other.hash(body)).not.toBe(hasher.hash(body));
    expect(RequestHasher.fromText(KEY.toString('base64')).hash(body)).toBe(hasher.hash(body));
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => RequestHasher.withKey(new Secret(randomBytes(16)))).toThrow(/at least 32 bytes/);
  });

  it('has no key in a process that answers no requests, and says so when asked to hash', () => {
    expect(() => RequestHasher.unavailable('ORDER_TRANSACTION_MODE is dispatch').hash({ a: 1 })).toThrow(
      'no request hash key: ORDER_TRANSACTION_MODE is dispatch',
    );
  });

  describe('fromConfig', () => {
    const problemOf = (text: string): string => {
      try {
        RequestHasher.fromConfig(text);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).message;
      }
      throw new Error('accepted');
    };

    it('refuses a missing, short or malformed key, naming the variable and never the value', () => {
      expect(problemOf('')).toBe('Invalid configuration: REQUEST_HASH_KEY: is required (base64 of 32 bytes)');
      expect(() => RequestHasher.fromConfig('', 'when ORDER_TRANSACTION_MODE is serve')).toThrow(
        'REQUEST_HASH_KEY: is required when ORDER_TRANSACTION_MODE is serve (base64 of 32 bytes)',
      );
      const short = randomBytes(16).toString('base64');
      expect(problemOf(short)).toMatch(/^Invalid configuration: REQUEST_HASH_KEY: .*must be 32 bytes/);
      expect(problemOf(short)).not.toContain(short);
      expect(problemOf('not base64 !!')).toMatch(/REQUEST_HASH_KEY is not base64$/);
    });

    it('takes base64 (standard or URL-safe) of 32 bytes', () => {
      expect(RequestHasher.fromConfig(KEY.toString('base64url')).hash({ a: 1 })).toBe(hasher.hash({ a: 1 }));
    });
  });
});
