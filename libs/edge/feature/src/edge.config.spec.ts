import { ConfigError, loadConfig } from '@gateway/platform';
import { EdgeConfig } from './edge.config';
import { TrustedProxies } from './http/trusted-proxies';

const BASE = { DATABASE_URL: 'postgres://edge@127.0.0.1/gw', API_PASSWORD_PEPPER: 'p'.repeat(32) };

function problemsOf(env: Record<string, string>): Record<string, string> {
  try {
    loadConfig(EdgeConfig, { ...BASE, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return Object.fromEntries(err.problems.map((p) => [p.variable, p.problem]));
    throw err;
  }
  return {};
}

describe('EdgeConfig: TLS, certificates and proxies', () => {
  it('serves plain HTTP by default, with certificate authentication off', () => {
    expect(problemsOf({})).toEqual({});
  });

  it('refuses to start half-configured, naming what is missing', () => {
    expect(problemsOf({ TLS_CERT_FILE: '/tls/tls.crt' })).toEqual({ TLS_KEY_FILE: 'is required with TLS_CERT_FILE' });
    expect(problemsOf({ TLS_CLIENT_CERT: 'request' })).toEqual({
      TLS_CERT_FILE: 'is required with TLS_KEY_FILE, and when TLS_CLIENT_CERT is not none',
      TLS_CLIENT_CA_FILE: 'is required when TLS_CLIENT_CERT is not none or CLIENT_CERT_HEADER is set',
    });
    expect(problemsOf({ CLIENT_CERT_HEADER: 'ssl-client-cert' })).toEqual({
      TLS_CLIENT_CA_FILE: 'is required when TLS_CLIENT_CERT is not none or CLIENT_CERT_HEADER is set',
      TRUSTED_PROXIES: 'is required when CLIENT_CERT_HEADER is set: the header is believed only from these addresses',
    });
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/8, ingress' })).toEqual({ TRUSTED_PROXIES: 'must be comma-separated IP addresses or CIDR ranges' });
    expect(problemsOf({ TLS_CLIENT_CERT: 'optional' })).toMatchObject({ TLS_CLIENT_CERT: expect.any(String) });
  });

  it('accepts a complete ingress setup', () => {
    expect(problemsOf({ CLIENT_CERT_HEADER: 'ssl-client-cert', TLS_CLIENT_CA_FILE: '/ca/ca.crt', TRUSTED_PROXIES: '10.0.0.0/8,fd00::/8' })).toEqual({});
  });
});

describe('TrustedProxies', () => {
  const proxies = new TrustedProxies('10.0.0.0/8, 192.0.2.7, fd00::/8');

  it('matches addresses and ranges, IPv4-mapped IPv6 included', () => {
    expect(proxies.includes('10.1.2.3')).toBe(true);
    expect(proxies.includes('::ffff:10.1.2.3')).toBe(true);
    expect(proxies.includes('192.0.2.7')).toBe(true);
    expect(proxies.includes('fd00::1')).toBe(true);
    expect(proxies.includes('192.0.2.8')).toBe(false);
    expect(proxies.includes('11.0.0.1')).toBe(false);
    expect(proxies.includes(undefined)).toBe(false);
  });

  it('trusts nobody when empty', () => {
    expect(new TrustedProxies('').includes('127.0.0.1')).toBe(false);
  });
});

describe('EdgeConfig: the order lock', () => {
  it('refuses a lease no longer than the wait for a service, which a running operation would outlive', () => {
    expect(problemsOf({ ORDER_LOCK_TTL_MS: '10000' })).toEqual({ ORDER_LOCK_TTL_MS: 'must be longer than NATS_REQUEST_TIMEOUT_MS (10000)' });
    expect(problemsOf({ ORDER_LOCK_TTL_MS: '20000', NATS_REQUEST_TIMEOUT_MS: '25000' })).toEqual({ ORDER_LOCK_TTL_MS: 'must be longer than NATS_REQUEST_TIMEOUT_MS (25000)' });
    expect(problemsOf({ ORDER_LOCK_TTL_MS: '10001' })).toEqual({});
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '5s' })).toEqual({ NATS_REQUEST_TIMEOUT_MS: expect.any(String) });
  });
});
