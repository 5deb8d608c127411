import { randomBytes } from 'node:crypto';
import { describeConfig, loadConfig } from '@gateway/platform';
import { configErrorOf } from '@gateway/testing';
import { OrderTransactionConfig } from './order-transaction.config';
import { loadRequestHasher } from './order-transaction.module';

const BASE = { DATABASE_URL: 'postgres://ot@127.0.0.1/gw' };
const KEY = randomBytes(32).toString('base64');

const problemsOf = (read: () => unknown): string => configErrorOf(read).message;

describe('REQUEST_HASH_KEY of order-transaction', () => {
  it('is a secret: base64 of 32 bytes, never shown in a config dump', () => {
    const config = loadConfig(OrderTransactionConfig, { ...BASE, REQUEST_HASH_KEY: KEY });
    expect(config.REQUEST_HASH_KEY).toBe(KEY);
    expect(describeConfig(OrderTransactionConfig, config)).toMatchObject({ REQUEST_HASH_KEY: '<set>' });
    // URL-safe base64 without padding, as the standalone profile generates it.
    expect(loadConfig(OrderTransactionConfig, { ...BASE, REQUEST_HASH_KEY: randomBytes(32).toString('base64url') }).REQUEST_HASH_KEY).toHaveLength(43);
  });

  it('refuses a short or malformed key, naming the variable and never the value', () => {
    const short = randomBytes(16).toString('base64');
    for (const bad of [short, `${KEY}x`, 'not base64 at all, but forty-four characters']) {
      const message = problemsOf(() => loadConfig(OrderTransactionConfig, { ...BASE, REQUEST_HASH_KEY: bad }));
      expect(message).toBe('Invalid configuration: REQUEST_HASH_KEY: must be base64 of 32 bytes');
      expect(message).not.toContain(bad);
    }
  });

  it('is required where order-transaction answers requests, and not in the webhook dispatcher', () => {
    for (const mode of ['serve', 'all']) {
      const config = loadConfig(OrderTransactionConfig, { ...BASE, ORDER_TRANSACTION_MODE: mode, WEBHOOK_SECRET_KEYS: `w1:${KEY}` });
      expect(problemsOf(() => loadRequestHasher(config))).toBe(
        `Invalid configuration: REQUEST_HASH_KEY: is required when ORDER_TRANSACTION_MODE is ${mode} (base64 of 32 bytes)`,
      );
    }
    const dispatcher = loadConfig(OrderTransactionConfig, { ...BASE, ORDER_TRANSACTION_MODE: 'dispatch', WEBHOOK_SECRET_KEYS: `w1:${KEY}` });
    expect(() => loadRequestHasher(dispatcher).hash({ apiOperation: 'PAY' })).toThrow(/no request hash key: ORDER_TRANSACTION_MODE is dispatch/);
    const served = loadConfig(OrderTransactionConfig, { ...BASE, REQUEST_HASH_KEY: KEY });
    expect(loadRequestHasher(served).hash({ apiOperation: 'PAY' })).toMatch(/^[0-9a-f]{64}$/);
  });
});
