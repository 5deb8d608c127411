import { ConfigError, describeConfig, describeVariables, loadConfig, Metrics, urlCarriesCredentials } from '@gateway/platform';
import { EdgeConfig, edgeShutdownGraceNeeded, latestOrderOperationStart, longestEdgeRequest } from './edge.config';
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

describe('EdgeConfig: API password peppers', () => {
  const pepper = 'x'.repeat(32);

  it('takes API_PASSWORD_PEPPER alone (configurations from before rotation), API_PASSWORD_PEPPERS alone, or both', () => {
    expect(problemsOf({})).toEqual({});
    expect(problemsOf({ API_PASSWORD_PEPPER: '', API_PASSWORD_PEPPERS: `p2:${pepper}` })).toEqual({});
    expect(problemsOf({ API_PASSWORD_PEPPERS: `p2:${pepper},p1:${pepper}` })).toEqual({});
  });

  it('refuses a missing, malformed or inconsistent pepper configuration, naming the variable and never a pepper', () => {
    expect(problemsOf({ API_PASSWORD_PEPPER: '' })).toEqual({ API_PASSWORD_PEPPER: 'is required' });
    expect(problemsOf({ API_PASSWORD_PEPPER: 'short' })).toEqual({ API_PASSWORD_PEPPER: 'API_PASSWORD_PEPPER must be longer than or equal to 32 characters' });
    const problems = {
      dup: problemsOf({ API_PASSWORD_PEPPERS: `p1:${pepper},p1:${pepper}` }),
      short: problemsOf({ API_PASSWORD_PEPPERS: 'p1:short-secret' }),
      noId: problemsOf({ API_PASSWORD_PEPPERS: pepper }),
      legacyTwice: problemsOf({ API_PASSWORD_PEPPERS: `legacy:${pepper}` }),
    };
    expect(problems).toEqual({
      dup: { API_PASSWORD_PEPPERS: 'API_PASSWORD_PEPPERS names pepper p1 twice' },
      short: { API_PASSWORD_PEPPERS: 'API_PASSWORD_PEPPERS pepper p1 must be at least 32 characters' },
      noId: { API_PASSWORD_PEPPERS: expect.stringContaining('entry 1 must be <id>:<pepper>') },
      legacyTwice: { API_PASSWORD_PEPPERS: expect.stringContaining('names legacy, the pepper API_PASSWORD_PEPPER also sets') },
    });
    expect(JSON.stringify(problems)).not.toContain(pepper);
    expect(JSON.stringify(problems)).not.toContain('short-secret');
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
  it("refuses a lease no longer than what an operation waits on under it (one budget for its requests, then a LOCK_FAILURE answer's read), which a running operation would outlive", () => {
    const tooShort = (timeout: number) => ({
      ORDER_LOCK_TTL_MS: expect.stringMatching(new RegExp(`^must be longer than NATS_REQUEST_TIMEOUT_MS \\+ 1000 \\(${timeout + 1000}\\): an operation's requests under the order's lock share one NATS_REQUEST_TIMEOUT_MS`)),
    });
    expect(problemsOf({ ORDER_LOCK_TTL_MS: '10000' })).toEqual(tooShort(10000));
    expect(problemsOf({ ORDER_LOCK_TTL_MS: '11000' })).toEqual(tooShort(10000));
    expect(problemsOf({ ORDER_LOCK_TTL_MS: '11001' })).toEqual({});
    // A grace long enough for 25 s requests (the shutdown grace's own rule, below).
    const slow = { NATS_REQUEST_TIMEOUT_MS: '25000', SHUTDOWN_GRACE_MS: '100000' };
    expect(problemsOf({ ...slow, ORDER_LOCK_TTL_MS: '26000' })).toEqual(tooShort(25000));
    // Enough now that the replay check, the seals and the operation share one 25 s (not 2 × 25 s).
    expect(problemsOf({ ...slow, ORDER_LOCK_TTL_MS: '40000' })).toEqual({});
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '5s' })).toEqual({ NATS_REQUEST_TIMEOUT_MS: expect.any(String) });
  });
});

describe('EdgeConfig: the lock waits and their histogram', () => {
  it('has gateway_order_lock_wait_seconds tell apart every lock wait the edge accepts, the payer step\'s 2 s included', async () => {
    // The longest waits the settings take (a timed-out wait lasts that long, a little more).
    expect(problemsOf({ ORDER_LOCK_WAIT_MS: '10000', PAYER_LOCK_WAIT_MS: '10000' })).toEqual({});
    expect(Object.keys(problemsOf({ ORDER_LOCK_WAIT_MS: '10001', PAYER_LOCK_WAIT_MS: '10001' })).sort()).toEqual(['ORDER_LOCK_WAIT_MS', 'PAYER_LOCK_WAIT_MS']);
    const defaults = new EdgeConfig();
    const waits = [defaults.ORDER_LOCK_WAIT_MS, defaults.PAYER_LOCK_WAIT_MS, 10_000].map((ms) => ms / 1000 + 0.005);
    const metrics = new Metrics();
    for (const seconds of waits) {
      metrics.lockWait.observe({ outcome: 'timeout' }, seconds);
    }
    const finite = (await metrics.lockWait.get()).values
      .filter((v) => v.metricName === 'gateway_order_lock_wait_seconds_bucket')
      .map((b) => ({ le: String((b.labels as Record<string, string | number>).le), value: b.value }))
      .filter((b) => b.le !== '+Inf');
    // Each wait lands below the top finite bucket, none past it (where a quantile reads only "more").
    expect(finite[finite.length - 1].value).toBe(waits.length);
    // And each in a bucket of its own: a timeout at one wait is not read as one at another.
    const firstBucketOf = (seconds: number) => finite.find((b) => Number(b.le) >= seconds)?.le;
    expect(new Set(waits.map(firstBucketOf)).size).toBe(waits.length);
  });
});

describe('EdgeConfig: the API version range', () => {
  it('refuses a range whose ends are swapped, which would answer every request 400', () => {
    expect(problemsOf({ API_VERSION_MIN: '100', API_VERSION_MAX: '29' })).toEqual({
      API_VERSION_MAX: 'must be at least API_VERSION_MIN (100): below it no version is accepted, and every request is answered 400',
    });
    expect(problemsOf({ API_VERSION_MAX: '28' })).toEqual({ API_VERSION_MAX: expect.stringContaining('API_VERSION_MIN (29)') });
    expect(problemsOf({ API_VERSION_MIN: '29', API_VERSION_MAX: '29' })).toEqual({});
    // A malformed minimum is reported on its own variable only.
    expect(problemsOf({ API_VERSION_MIN: 'v29' })).toEqual({ API_VERSION_MIN: expect.any(String) });
  });
});

describe('EdgeConfig: durations in milliseconds', () => {
  it('refuses a session lifetime written in seconds, saying the unit, rather than sessions of 3.6 seconds', () => {
    expect(problemsOf({ SESSION_TTL_MS: '3600' })).toEqual({
      SESSION_TTL_MS: 'must be at least 120000 (2 minutes): the value is in milliseconds; 3600 is 3.6 seconds',
    });
    // Any lifetime up to the maximum, a day, written in seconds.
    expect(problemsOf({ SESSION_TTL_MS: '86400' })).toEqual({ SESSION_TTL_MS: expect.stringContaining('the value is in milliseconds; 86400 is 86.4 seconds') });
    expect(problemsOf({ SESSION_TTL_MS: '119999' })).toEqual({ SESSION_TTL_MS: expect.stringContaining('at least 120000') });
    expect(problemsOf({ SESSION_TTL_MS: '120000' })).toEqual({});
    expect(problemsOf({ SESSION_TTL_MS: '1h' })).toEqual({ SESSION_TTL_MS: expect.stringContaining('must be an integer') });
  });

  it('refuses an expired session notice written in seconds, up to its maximum of a week', () => {
    expect(problemsOf({ SESSION_EXPIRED_NOTICE_MS: '604800' })).toEqual({
      SESSION_EXPIRED_NOTICE_MS: 'must be at least 900000 (15 minutes): the value is in milliseconds; 604800 is 604.8 seconds',
    });
    expect(problemsOf({ SESSION_EXPIRED_NOTICE_MS: '900000' })).toEqual({});
  });

  it('names the unit for the other durations whose floor already refuses seconds', () => {
    expect(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '30' })).toEqual({
      HTTP_REQUEST_TIMEOUT_MS: 'must be at least 1000 (1 second): the value is in milliseconds; 30 is 0.03 seconds',
    });
    expect(problemsOf({ ORDER_LOCK_TTL_MS: '30' })).toEqual({ ORDER_LOCK_TTL_MS: expect.stringContaining('the value is in milliseconds; 30 is 0.03 seconds') });
  });
});

describe('EdgeConfig: URLs with credentials', () => {
  it('never shows the Redis or NATS password when the configuration is described', () => {
    const config = loadConfig(EdgeConfig, { ...BASE, REDIS_URL: 'rediss://:redis-pw-3f9a@redis.internal:6379', NATS_URL: 'tls://edge:nats-pw-7c21@nats-0:4222,tls://edge:nats-pw-7c21@nats-1:4222' });
    const described = JSON.stringify(describeConfig(EdgeConfig, config));

    expect(described).not.toContain('redis-pw-3f9a');
    expect(described).not.toContain('nats-pw-7c21');
    expect(described).not.toContain('p'.repeat(32));
    expect(describeConfig(EdgeConfig, config)).toMatchObject({ REDIS_URL: '<set>', NATS_URL: '<set>', DATABASE_URL: '<set>' });
  });

  it('marks every URL that may carry credentials secret: the database wholly, Redis and NATS for their credentials', () => {
    const docs = describeVariables(EdgeConfig);
    expect(docs.DATABASE_URL).toMatchObject({ secret: true });
    expect(docs.DATABASE_URL.credentialsInUrl).toBeUndefined();
    expect(docs.REDIS_URL).toMatchObject({ secret: true, credentialsInUrl: true });
    expect(docs.NATS_URL).toMatchObject({ secret: true, credentialsInUrl: true });
  });

  it("reads no PUBLIC_BASE_URL: browser-payment builds the payer's URLs from its own, and the edge serves /bpui at whatever address it is reached", () => {
    // A setting the edge declared but never used told operators to set it for nothing.
    expect(Object.keys(describeVariables(EdgeConfig))).not.toContain('PUBLIC_BASE_URL');
  });

  it('tells a URL with credentials from one without, in each of a list', () => {
    expect(urlCarriesCredentials('redis://redis:6379')).toBe(false);
    expect(urlCarriesCredentials('tls://nats-0:4222,tls://nats-1:4222')).toBe(false);
    expect(urlCarriesCredentials('rediss://:pw@redis:6379')).toBe(true);
    expect(urlCarriesCredentials('nats://token@nats:4222')).toBe(true);
    expect(urlCarriesCredentials('tls://nats-0:4222, tls://u:pw@nats-1:4222')).toBe(true);
  });
});

describe('EdgeConfig: the shutdown grace', () => {
  it('lets an edge started without SHUTDOWN_GRACE_MS end its settlement in progress, then its longest request, then drain', () => {
    const defaults = loadConfig(EdgeConfig, BASE);
    // A payer's step: lock wait 2 s between two requests of 10 s. An order operation is shorter:
    // lock wait 100 + one budget of 10 s for every request under the lock + the LOCK_FAILURE read 1 s.
    expect(longestEdgeRequest(defaults)).toBe(22_000);
    // The sweep's settlement in progress 10 s + that request 22 s + drain 2 s.
    expect(edgeShutdownGraceNeeded(defaults)).toBe(34_000);
    expect(defaults.SHUTDOWN_GRACE_MS).toBe(50_000);
    expect(problemsOf({})).toEqual({});
  });

  it('counts one budget for an order operation, however many requests it sends under the lock', () => {
    // Short requests and the longest lock wait: the order operation is the longest request,
    // 10 s + 1 s + 1 s (not 10 s + 5 × 1 s + 1 s).
    const config = loadConfig(EdgeConfig, { ...BASE, NATS_REQUEST_TIMEOUT_MS: '1000', ORDER_LOCK_WAIT_MS: '10000', PAYER_LOCK_WAIT_MS: '0' });
    expect(longestEdgeRequest(config)).toBe(12_000);
    expect(edgeShutdownGraceNeeded(config)).toBe(15_000);
  });

  it('says how long after taking an order operation its service may still begin it: the lock wait, then the budget its requests share', () => {
    expect(latestOrderOperationStart(loadConfig(EdgeConfig, BASE))).toBe(10_100);
    // Not the LOCK_FAILURE answer's read (1 s), which the longest request counts: it begins no operation.
    const config = loadConfig(EdgeConfig, { ...BASE, NATS_REQUEST_TIMEOUT_MS: '1000', ORDER_LOCK_WAIT_MS: '10000', PAYER_LOCK_WAIT_MS: '0' });
    expect([latestOrderOperationStart(config), longestEdgeRequest(config)]).toEqual([11_000, 12_000]);
  });

  it('refuses a grace the longest stop would outlast, naming the settings it is made of', () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '30000' })).toEqual({
      SHUTDOWN_GRACE_MS: expect.stringMatching(
        /^must be at least 34000: a stopping edge first ends the expired-payment settlement in progress \(NATS_REQUEST_TIMEOUT_MS.*BROWSER_PAYMENT_SWEEP_INTERVAL_MS.*the longest 22000 \(an order operation: ORDER_LOCK_WAIT_MS \+ NATS_REQUEST_TIMEOUT_MS, which its requests under the lock share.*PAYER_LOCK_WAIT_MS \+ 2 × NATS_REQUEST_TIMEOUT_MS.*then drains \(2000\)$/,
      ),
    });
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '33999' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 34000') });
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '34000' })).toEqual({});
  });

  it('follows NATS_REQUEST_TIMEOUT_MS, both in the settlement and in each request waited on, and the lock waits', () => {
    // 15 s + (2 s + 2 × 15 s) + 2 s.
    const slower = { NATS_REQUEST_TIMEOUT_MS: '15000', ORDER_LOCK_TTL_MS: '40000' };
    expect(problemsOf({ ...slower, SHUTDOWN_GRACE_MS: '48999' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 49000') });
    expect(problemsOf({ ...slower, SHUTDOWN_GRACE_MS: '49000' })).toEqual({});
    // The order operation the longest: 10 s + (10 s + 10 s + 1 s) + 2 s.
    expect(problemsOf({ ORDER_LOCK_WAIT_MS: '10000', PAYER_LOCK_WAIT_MS: '0', SHUTDOWN_GRACE_MS: '32999' })).toEqual({
      SHUTDOWN_GRACE_MS: expect.stringContaining('at least 33000'),
    });
    // Short requests: a payer's step, 10 s for the lock between two requests of 1 s, is the longest: 1 s + 12 s + 2 s.
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '1000', PAYER_LOCK_WAIT_MS: '10000', SHUTDOWN_GRACE_MS: '14999' })).toEqual({
      SHUTDOWN_GRACE_MS: expect.stringContaining('at least 15000'),
    });
  });

  it("keeps the platform's own checks of SHUTDOWN_GRACE_MS beside its own: a whole number of milliseconds, at most 420000", () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '420001' })).toEqual({ SHUTDOWN_GRACE_MS: 'SHUTDOWN_GRACE_MS must not be greater than 420000' });
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '420000' })).toEqual({});
    expect(problemsOf({ SHUTDOWN_GRACE_MS: 'abc' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('SHUTDOWN_GRACE_MS must be an integer number') });
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '60000.5' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('SHUTDOWN_GRACE_MS must be an integer number') });
  });

  it('never asks for a grace above what SHUTDOWN_GRACE_MS accepts, whatever the other settings within their bounds', () => {
    // Every term at its maximum: 120 s + (10 s + 2 × 120 s) + 2 s.
    const longest = { NATS_REQUEST_TIMEOUT_MS: '120000', ORDER_LOCK_WAIT_MS: '10000', PAYER_LOCK_WAIT_MS: '10000', ORDER_LOCK_TTL_MS: '600000' };
    expect(problemsOf({ ...longest, SHUTDOWN_GRACE_MS: '371999' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 372000') });
    expect(problemsOf({ ...longest, SHUTDOWN_GRACE_MS: '372000' })).toEqual({});
  });

  it('counts no settlement where the sweep is off, and reports an unreadable term on its own variable', () => {
    expect(problemsOf({ BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '0', SHUTDOWN_GRACE_MS: '24000' })).toEqual({});
    expect(problemsOf({ BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '0', SHUTDOWN_GRACE_MS: '23999' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 24000') });
    expect(problemsOf({ PAYER_LOCK_WAIT_MS: 'soon' })).toEqual({ PAYER_LOCK_WAIT_MS: expect.any(String) });
  });
});
