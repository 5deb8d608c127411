import { BrowserPaymentConfig } from '@gateway/browser-payment/feature';
import { loadConfig } from '@gateway/platform';
import { testRequestHashKey } from '@gateway/testing';
import { standalonePublicBaseUrl, withStandalonePublicBaseUrl } from './standalone-public-base-url';

/** The rest of what main.ts hands the apps' configurations. */
const SETTINGS = {
  GATEWAY_PROFILE: 'standalone',
  DATABASE_URL: 'postgres://gateway@127.0.0.1:5432/gateway',
  API_PASSWORD_PEPPER: 'unit-test-pepper-0123456789abcdef0123456789',
  REQUEST_HASH_KEY: testRequestHashKey(),
};

describe('the standalone profile\'s PUBLIC_BASE_URL', () => {
  it('follows HTTP_PORT when not set: the browser payment redirect URLs point where the gateway listens', () => {
    const env = withStandalonePublicBaseUrl({ ...SETTINGS, HTTP_PORT: '18611' });
    expect(env.PUBLIC_BASE_URL).toBe('http://127.0.0.1:18611');
    expect(loadConfig(BrowserPaymentConfig, env).PUBLIC_BASE_URL).toBe('http://127.0.0.1:18611');
  });

  it('is the edge\'s default address when nothing is set, and an empty value counts as unset', () => {
    expect(withStandalonePublicBaseUrl(SETTINGS).PUBLIC_BASE_URL).toBe('http://127.0.0.1:8080');
    // browser-payment, which requires the variable, starts with nothing set (`npm start`).
    expect(loadConfig(BrowserPaymentConfig, withStandalonePublicBaseUrl(SETTINGS)).PUBLIC_BASE_URL).toBe('http://127.0.0.1:8080');
    expect(withStandalonePublicBaseUrl({ ...SETTINGS, PUBLIC_BASE_URL: '', HTTP_PORT: '9000' }).PUBLIC_BASE_URL).toBe('http://127.0.0.1:9000');
  });

  it('keeps the operator\'s PUBLIC_BASE_URL', () => {
    const env = withStandalonePublicBaseUrl({ ...SETTINGS, HTTP_PORT: '18611', PUBLIC_BASE_URL: 'https://pay.example' });
    expect(loadConfig(BrowserPaymentConfig, env).PUBLIC_BASE_URL).toBe('https://pay.example');
  });

  it('uses https when the edge serves TLS, and the host the edge binds unless it binds every interface', () => {
    expect(standalonePublicBaseUrl({ HTTP_HOST: '0.0.0.0', HTTP_PORT: 8443, TLS_CERT_FILE: '/tls/tls.crt' })).toBe('https://127.0.0.1:8443');
    expect(standalonePublicBaseUrl({ HTTP_HOST: '::', HTTP_PORT: 8080, TLS_CERT_FILE: '' })).toBe('http://127.0.0.1:8080');
    expect(standalonePublicBaseUrl({ HTTP_HOST: 'localhost', HTTP_PORT: 18611, TLS_CERT_FILE: '' })).toBe('http://localhost:18611');
    expect(standalonePublicBaseUrl({ HTTP_HOST: '::1', HTTP_PORT: 18611, TLS_CERT_FILE: '' })).toBe('http://[::1]:18611');
    // What the validators of both apps accept.
    const tls = withStandalonePublicBaseUrl({ ...SETTINGS, HTTP_PORT: '8443', TLS_CERT_FILE: '/tls/tls.crt', TLS_KEY_FILE: '/tls/tls.key' });
    expect(loadConfig(BrowserPaymentConfig, tls).PUBLIC_BASE_URL).toBe('https://127.0.0.1:8443');
    const env = withStandalonePublicBaseUrl({ ...SETTINGS, HTTP_HOST: '::1', HTTP_PORT: '18611' });
    expect(loadConfig(BrowserPaymentConfig, env).PUBLIC_BASE_URL).toBe('http://[::1]:18611');
  });
});
