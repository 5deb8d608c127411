import { EdgeConfig, edgeShutdownGraceNeeded } from '@gateway/edge/feature';
import { OrderTransactionConfig, shutdownGraceNeeded } from '@gateway/order-transaction/feature';
import { ConfigError, loadConfig } from '@gateway/platform';
import { testRequestHashKey } from '@gateway/testing';
import { checkStandaloneShutdownGrace, standaloneShutdownGraceNeeded } from './standalone-shutdown-grace';

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
  it('starts with the defaults: the jobs 10 s, the ledger\'s operation 38 s (longer than the edge\'s longest request, 22 s), the drain 2 s', () => {
    expect(standaloneShutdownGraceNeeded(...configs({}))).toBe(50_000);
    expect(problemOf({})).toBeUndefined();
  });

  it("counts the edge's settlement beside the ledger's jobs, which stop together: the longest of them, before the ledger's operation", () => {
    // Inquiries off, deliveries 1 s, the settlement 5 s: 5 s + the ledger's operation (1 + 3 + 25 + 5 s) + 2 s.
    const env = { UNKNOWN_INQUIRY_INTERVAL_MS: '0', WEBHOOK_TIMEOUT_MS: '1000', NATS_REQUEST_TIMEOUT_MS: '5000', REFUND_CALL_TIMEOUT_MS: '1000' };
    const [edge, ledger] = configs({ ...env, SHUTDOWN_GRACE_MS: '40000' });
    // Each app's own formula is met, and misses what the other adds.
    expect([shutdownGraceNeeded(ledger), edgeShutdownGraceNeeded(edge)]).toEqual([37_000, 19_000]);
    expect(standaloneShutdownGraceNeeded(edge, ledger)).toBe(41_000);
    expect(problemOf({ ...env, SHUTDOWN_GRACE_MS: '40999' })).toMatch(
      /^SHUTDOWN_GRACE_MS: must be at least 41000: the standalone gateway first stops its background jobs together, the longest 5000 .*WEBHOOK_TIMEOUT_MS.*NATS_REQUEST_TIMEOUT_MS.*card operation \(34000\) and the edge's HTTP request \(12000\), then drains \(2000\)$/,
    );
    expect(problemOf({ ...env, SHUTDOWN_GRACE_MS: '41000' })).toBeUndefined();
    // Without the sweep, the deliveries are the longest job.
    expect(standaloneShutdownGraceNeeded(...configs({ ...env, BROWSER_PAYMENT_SWEEP_INTERVAL_MS: '0' }))).toBe(37_000);
  });

  it('needs more once NATS_REQUEST_TIMEOUT_MS is raised above the inquiry and the deliveries, which is all the ledger alone counts', () => {
    const slower = { NATS_REQUEST_TIMEOUT_MS: '20000', ORDER_LOCK_TTL_MS: '40000', SHUTDOWN_GRACE_MS: '100000' };
    expect(shutdownGraceNeeded(configs(slower)[1])).toBe(50_000);
    // The settlement 20 s + the edge's longest request, a payer's step (2 s + 2 × 20 s), now longer than the ledger's 38 s + 2 s.
    expect(standaloneShutdownGraceNeeded(...configs(slower))).toBe(64_000);
  });
});
