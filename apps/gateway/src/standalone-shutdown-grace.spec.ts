import { EdgeConfig, edgeShutdownGraceNeeded, latestOrderOperationStart, longestEdgeRequest } from '@gateway/edge/feature';
import { longestReservedOperation, OrderTransactionConfig, shutdownGraceNeeded } from '@gateway/order-transaction/feature';
import { ConfigError, loadConfig, PlatformConfig } from '@gateway/platform';
import { testRequestHashKey } from '@gateway/testing';
import { checkStandaloneShutdownGrace, standaloneShutdownGraceNeeded, withStandaloneShutdownGrace } from './standalone-shutdown-grace';

/** What main.ts hands the apps' configurations, besides the operator's variables. */
const SETTINGS = {
  GATEWAY_PROFILE: 'standalone',
  ORDER_TRANSACTION_MODE: 'all',
  DATABASE_URL: 'postgres://gateway@127.0.0.1:5432/gateway',
  API_PASSWORD_PEPPER: 'unit-test-pepper-0123456789abcdef0123456789',
  REQUEST_HASH_KEY: testRequestHashKey(),
};

/** The configurations as main.ts loads them, each app's own checks passed. */
function configs(env: Record<string, string>): [EdgeConfig, OrderTransactionConfig] {
  return [loadConfig(EdgeConfig, { ...SETTINGS, ...env }), loadConfig(OrderTransactionConfig, { ...SETTINGS, ...env })];
}

/** The configurations as main.ts loads them, SHUTDOWN_GRACE_MS unless set the standalone's own default. */
function defaulted(env: Record<string, string>): [EdgeConfig, OrderTransactionConfig] {
  return configs(withStandaloneShutdownGrace({ ...SETTINGS, ...env }));
}

function problemOf(env: Record<string, string>): string | undefined {
  try {
    checkStandaloneShutdownGrace(...configs(env));
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.variable}: ${p.problem}`).join('; ');
    throw err;
  }
  return undefined;
}

describe("the standalone gateway's shutdown grace", () => {
  it("counts a card operation begun late in an order operation's budget: the jobs 10 s, then 10.1 s to its start and the ledger's 38 s, then the drain 2 s", () => {
    const [edge, ledger] = configs({});
    // An order operation taken as the HTTP server closes waits 100 ms for the order's lock; its replay
    // check and seals may spend its 10 s budget but for the last moment, when its card operation is
    // sent and begun; that then runs its whole length after the edge has stopped waiting.
    expect([latestOrderOperationStart(edge), longestReservedOperation(ledger), longestEdgeRequest(edge)]).toEqual([10_100, 38_000, 22_000]);
    expect(standaloneShutdownGraceNeeded(edge, ledger)).toBe(60_100);
  });

  it('takes what it needs when SHUTDOWN_GRACE_MS is unset, 60.1 s with the defaults, where every other app takes 50 s', () => {
    expect(withStandaloneShutdownGrace({ ...SETTINGS }).SHUTDOWN_GRACE_MS).toBe('60100');
    // An empty value is unset, as loadConfig reads it.
    expect(withStandaloneShutdownGrace({ ...SETTINGS, SHUTDOWN_GRACE_MS: '' }).SHUTDOWN_GRACE_MS).toBe('60100');
    const [edge, ledger] = defaulted({});
    expect([edge.SHUTDOWN_GRACE_MS, ledger.SHUTDOWN_GRACE_MS]).toEqual([60_100, 60_100]);
    expect(() => checkStandaloneShutdownGrace(edge, ledger)).not.toThrow();
    // The distributed apps' own default is untouched.
    expect(configs({})[0].SHUTDOWN_GRACE_MS).toBe(50_000);
  });

  it('keeps a SHUTDOWN_GRACE_MS the operator set, and refuses it when shorter than the gateway needs, naming the terms', () => {
    expect(withStandaloneShutdownGrace({ ...SETTINGS, SHUTDOWN_GRACE_MS: '50000' }).SHUTDOWN_GRACE_MS).toBe('50000');
    expect(problemOf({ SHUTDOWN_GRACE_MS: '50000' })).toMatch(
      /^SHUTDOWN_GRACE_MS: must be at least 60100: .*the longest 10000 .*longest HTTP request \(22000\) and a card operation \(48100: .*ORDER_LOCK_WAIT_MS \+ NATS_REQUEST_TIMEOUT_MS = 10100, .*REFUND_CALL_TIMEOUT_MS .*38000\), then drains \(2000\); left unset, it defaults to what the gateway needs$/,
    );
    expect(problemOf({ SHUTDOWN_GRACE_MS: '60099' })).toMatch(/^SHUTDOWN_GRACE_MS: must be at least 60100/);
    expect(problemOf({ SHUTDOWN_GRACE_MS: '60100' })).toBeUndefined();
  });

  it("defaults to what it needs where the apps' 50 s would already fail their own checks", () => {
    // NATS_REQUEST_TIMEOUT_MS 20 s: the edge alone needs 20 s + (2 s + 2 × 20 s) + 2 s = 64 s.
    const slower = { NATS_REQUEST_TIMEOUT_MS: '20000', ORDER_LOCK_TTL_MS: '40000' };
    expect(() => configs(slower)).toThrow(/SHUTDOWN_GRACE_MS: must be at least 64000/);
    // The settlement 20 s + a card operation begun 20.1 s after its request, running 38 s + 2 s.
    expect(defaulted(slower).map((config) => config.SHUTDOWN_GRACE_MS)).toEqual([80_100, 80_100]);
    // Another variable at fault is named, not the grace read under it.
    expect(() => withStandaloneShutdownGrace({ ...SETTINGS, NATS_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/^Invalid configuration: NATS_REQUEST_TIMEOUT_MS: /);
  });

  it('counts the lock wait before the budget: a longer ORDER_LOCK_WAIT_MS starts the card operation later', () => {
    // 10 s + (10 s + 10 s + 38 s) + 2 s; the edge's own longest request is still a payer's step, 22 s.
    expect(standaloneShutdownGraceNeeded(...configs({ ORDER_LOCK_WAIT_MS: '10000', SHUTDOWN_GRACE_MS: '100000' }))).toBe(70_000);
  });

  it("counts the edge's settlement beside the ledger's jobs, which stop together: the longest of them, before the work in flight", () => {
    // Inquiries off, deliveries 1 s, the settlement 5 s: 5 s + (0.1 s + 5 s + the ledger's operation, 1 + 3 + 25 + 5 s) + 2 s.
    const env = { UNKNOWN_INQUIRY_INTERVAL_MS: '0', WEBHOOK_TIMEOUT_MS: '1000', NATS_REQUEST_TIMEOUT_MS: '5000', REFUND_CALL_TIMEOUT_MS: '1000' };
    const [edge, ledger] = configs({ ...env, SHUTDOWN_GRACE_MS: '40000' });
    // Each app's own formula is met, and misses what the other adds.
    expect([shutdownGraceNeeded(ledger), edgeShutdownGraceNeeded(edge)]).toEqual([37_000, 19_000]);
    expect(standaloneShutdownGraceNeeded(edge, ledger)).toBe(46_100);
    expect(problemOf({ ...env, SHUTDOWN_GRACE_MS: '46099' })).toMatch(
      /^SHUTDOWN_GRACE_MS: must be at least 46100: the standalone gateway first stops its background jobs together, the longest 5000 .*WEBHOOK_TIMEOUT_MS.*NATS_REQUEST_TIMEOUT_MS.*longest HTTP request \(12000\) and a card operation \(39100: .*= 5100, .*34000\), then drains \(2000\)/,
    );
    expect(problemOf({ ...env, SHUTDOWN_GRACE_MS: '46100' })).toBeUndefined();
    // Without the sweep, the deliveries are the longest job.
    expect(standaloneShutdownGraceNeeded(...configs({ ...env, BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '0' }))).toBe(42_100);
  });

  it("counts the edge's longest request instead where it ends after any card operation", () => {
    // A payer's step, 10 s for the lock between two requests of 60 s, against a card operation begun
    // 60.1 s after its request and running 38 s: the settlement 60 s + 130 s + 2 s.
    const slow = { NATS_REQUEST_TIMEOUT_MS: '60000', ORDER_LOCK_TTL_MS: '70000', PAYER_LOCK_WAIT_MS: '10000', SHUTDOWN_GRACE_MS: '200000' };
    expect(standaloneShutdownGraceNeeded(...configs(slow))).toBe(192_000);
  });

  it('never needs a grace above what SHUTDOWN_GRACE_MS accepts, whatever the other settings within their bounds', () => {
    // Every term at its maximum: the settlement 120 s + (10 s + 120 s + the ledger's 116.999 + 3 + 25 + 5 s) + 2 s.
    const longest = {
      NATS_REQUEST_TIMEOUT_MS: '120000',
      ORDER_LOCK_WAIT_MS: '10000',
      PAYER_LOCK_WAIT_MS: '10000',
      ORDER_LOCK_TTL_MS: '600000',
      REFUND_CALL_TIMEOUT_MS: '116999',
      WEBHOOK_TIMEOUT_MS: '60000',
      ABANDONED_RESERVATION_AFTER_MS: '160000',
    };
    const env = withStandaloneShutdownGrace({ ...SETTINGS, ...longest });
    expect(env.SHUTDOWN_GRACE_MS).toBe('401999');
    // The platform's bounds, which the vault's, browser-payment's and verification's configurations
    // apply to it in the same process (the edge's and the ledger's own checks replace them).
    expect(loadConfig(PlatformConfig, env).SHUTDOWN_GRACE_MS).toBe(401_999);
    expect(() => checkStandaloneShutdownGrace(...configs(env))).not.toThrow();
  });
});
