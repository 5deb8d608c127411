import { randomBytes } from 'node:crypto';
import { describeConfig, loadConfig } from '@gateway/platform';
import { configErrorOf } from '@gateway/testing';
import { BrowserPaymentConfig } from './browser-payment.config';
import { BrowserPaymentModule } from './browser-payment.module';

const BASE = { DATABASE_URL: 'postgres://bp@127.0.0.1/gw', PUBLIC_BASE_URL: 'https://pay.example.com' };
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

describe('PERSONAL_DATA_RETENTION_DAYS of browser-payment', () => {
  const env = { ...BASE, REQUEST_HASH_KEY: KEY };

  it('is 600 days unless set, as the ledger\'s, 0 turning the job off', () => {
    expect(loadConfig(BrowserPaymentConfig, env).PERSONAL_DATA_RETENTION_DAYS).toBe(600);
    expect(loadConfig(BrowserPaymentConfig, { ...env, PERSONAL_DATA_RETENTION_DAYS: '0' }).PERSONAL_DATA_RETENTION_DAYS).toBe(0);
  });

  it('refuses what is not a whole number of days from 0 to ten years, naming the variable', () => {
    const refused = (value: string) => problemsOf(() => loadConfig(BrowserPaymentConfig, { ...env, PERSONAL_DATA_RETENTION_DAYS: value }));
    expect(refused('-1')).toBe('Invalid configuration: PERSONAL_DATA_RETENTION_DAYS: must be at least 0 (0 turns the job off)');
    expect(refused('3651')).toBe('Invalid configuration: PERSONAL_DATA_RETENTION_DAYS: must be at most 3650 days (ten years)');
    expect(refused('2.5')).toMatch(/^Invalid configuration: PERSONAL_DATA_RETENTION_DAYS: .*must be a whole number of days/);
    expect(refused('600 days')).toMatch(/^Invalid configuration: PERSONAL_DATA_RETENTION_DAYS: .*must be a whole number of days/);
  });
});

describe('PUBLIC_BASE_URL of browser-payment', () => {
  const env = { ...BASE, REQUEST_HASH_KEY: KEY };
  const refused = (value: string | undefined, profile = 'distributed') =>
    problemsOf(() => loadConfig(BrowserPaymentConfig, { ...env, GATEWAY_PROFILE: profile, PUBLIC_BASE_URL: value }));
  const read = (value: string) => loadConfig(BrowserPaymentConfig, { ...env, PUBLIC_BASE_URL: value }).PUBLIC_BASE_URL;

  // A default (it was http://127.0.0.1:8080) started a ready service whose redirect URLs no
  // payer's browser could open; the standalone gateway sets it itself (standalone-public-base-url).
  it('is required: unset or empty, the service refuses to start, naming it on one line', () => {
    expect(refused(undefined)).toBe('Invalid configuration: PUBLIC_BASE_URL: is required');
    expect(refused('')).toBe('Invalid configuration: PUBLIC_BASE_URL: is required');
    expect(problemsOf(() => loadConfig(BrowserPaymentConfig, { DATABASE_URL: BASE.DATABASE_URL, REQUEST_HASH_KEY: KEY }))).toBe(
      'Invalid configuration: PUBLIC_BASE_URL: is required',
    );
  });

  it('takes an http(s) origin, a trailing slash dropped so redirect URLs have no `//`', () => {
    expect(read('https://pay.example.com')).toBe('https://pay.example.com');
    expect(read('https://pay.example.com/')).toBe('https://pay.example.com');
    expect(read('http://10.0.0.5:8080')).toBe('http://10.0.0.5:8080');
    expect(read('http://[::1]:18611/')).toBe('http://[::1]:18611');
  });

  it('refuses a relative, non-http(s) or path, query, fragment or credentials-carrying value, naming the variable', () => {
    const message = 'Invalid configuration: PUBLIC_BASE_URL: must be an http(s) origin such as https://pay.example.com: no path, query, fragment or credentials';
    for (const bad of [
      'pay.example.com',
      '/bpui',
      'ftp://pay.example.com',
      'https://',
      'https://pay.example.com/gateway',
      'https://pay.example.com//',
      'https://pay.example.com?x=1',
      'https://pay.example.com/?x=1',
      'https://pay.example.com#top',
      'https://user:pw@pay.example.com',
      'https://pay.example.com:80a',
      ' https://pay.example.com',
    ]) {
      expect([bad, refused(bad)]).toEqual([bad, message]);
    }
  });
});
