import { randomBytes } from 'node:crypto';
import { describeConfig, loadConfig } from '@gateway/platform';
import { configErrorOf } from '@gateway/testing';
import { BrowserPaymentConfig } from './browser-payment.config';
import { BrowserPaymentModule } from './browser-payment.module';

const BASE = { DATABASE_URL: 'postgres://bp@127.0.0.1/gw' };
const KEY = randomBytes(32).toString('base64');

const problemsOf = (read: () => unknown): string => configErrorOf(read).message;

describe('REQUEST_HASH_KEY of browser-payment', () => {
  it('is a secret: base64 of 32 bytes, never shown in a config dump', () => {
    const config = loadConfig(BrowserPaymentConfig, { ...BASE, REQUEST_HASH_KEY: KEY });
    expect(describeConfig(BrowserPaymentConfig, config)).toMatchObject({ REQUEST_HASH_KEY: '<set>' });
  });

  it('is required, and refuses a short or malformed key naming the variable, never the value', () => {
    expect(problemsOf(() => BrowserPaymentModule.forRoot(loadConfig(BrowserPaymentConfig, BASE)))).toBe(
      'Invalid configuration: REQUEST_HASH_KEY: is required (base64 of 32 bytes)',
    );
    const short = randomBytes(16).toString('base64');
    for (const bad of [short, `${KEY}x`]) {
      const message = problemsOf(() => loadConfig(BrowserPaymentConfig, { ...BASE, REQUEST_HASH_KEY: bad }));
      expect(message).toBe('Invalid configuration: REQUEST_HASH_KEY: must be base64 of 32 bytes');
      expect(message).not.toContain(bad);
    }
  });
});
