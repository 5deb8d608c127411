import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '@gateway/platform';
import { OrderTransactionConfig, shutdownGraceNeeded } from './order-transaction.config';

const BASE = { DATABASE_URL: 'postgres://ot@127.0.0.1/gw', REQUEST_HASH_KEY: randomBytes(32).toString('base64') };

function problemsOf(env: Record<string, string>): Record<string, string> {
  try {
    loadConfig(OrderTransactionConfig, { ...BASE, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return Object.fromEntries(err.problems.map((p) => [p.variable, p.problem]));
    throw err;
  }
  return {};
}

// Long enough that the shutdown grace's own rule (below) stays quiet.
const ROOMY_GRACE = { SHUTDOWN_GRACE_MS: '120000' };

describe('OrderTransactionConfig: the calls under the edge\'s wait', () => {
  const tooLong = (timeout: number) => ({
    REFUND_CALL_TIMEOUT_MS: `must be shorter than NATS_REQUEST_TIMEOUT_MS less the timed-out reversal's wait (${timeout} - 3000 ms): an operation whose call timed out must be answered before the edge stops waiting`,
  });

  it('takes the defaults: a 5 s call and a 3 s reversal inside the 10 s the edge waits', () => {
    expect(problemsOf(ROOMY_GRACE)).toEqual({});
    expect(problemsOf({ ...ROOMY_GRACE, REFUND_CALL_TIMEOUT_MS: '6999' })).toEqual({});
  });

  it('refuses a call that, with the reversal after it, outlasts the edge\'s wait: the merchant would be told SERVER_BUSY while money moved', () => {
    expect(problemsOf({ ...ROOMY_GRACE, REFUND_CALL_TIMEOUT_MS: '7000' })).toEqual(tooLong(10000));
    expect(problemsOf({ ...ROOMY_GRACE, REFUND_CALL_TIMEOUT_MS: '10000' })).toEqual(tooLong(10000));
    expect(problemsOf({ ...ROOMY_GRACE, NATS_REQUEST_TIMEOUT_MS: '5000' })).toEqual(tooLong(5000));
    // Seconds where milliseconds are meant: 60 ms for the edge's whole wait.
    expect(problemsOf({ ...ROOMY_GRACE, NATS_REQUEST_TIMEOUT_MS: '60' })).toEqual(tooLong(60));
    expect(problemsOf({ ...ROOMY_GRACE, ORDER_TRANSACTION_MODE: 'all', REFUND_CALL_TIMEOUT_MS: '8000' })).toEqual(tooLong(10000));
  });

  it('leaves a dispatcher, which answers no requests, alone; a malformed timeout is reported on its own variable', () => {
    expect(problemsOf({ ...ROOMY_GRACE, ORDER_TRANSACTION_MODE: 'dispatch', REFUND_CALL_TIMEOUT_MS: '10000' })).toEqual({});
    expect(problemsOf({ ...ROOMY_GRACE, NATS_REQUEST_TIMEOUT_MS: '10s' })).toEqual({ NATS_REQUEST_TIMEOUT_MS: expect.any(String) });
  });
});

describe('OrderTransactionConfig: dispatcher workers against the pool', () => {
  const tooMany = (pool: number) => ({
    WEBHOOK_WORKERS: `must be fewer than DATABASE_POOL_SIZE (${pool}) where this process dispatches: each worker holds a connection while it delivers, and the outbox's other queries need one beside them`,
  });

  it('refuses as many workers as pooled connections where notifications are dispatched', () => {
    expect(problemsOf({ ...ROOMY_GRACE, ORDER_TRANSACTION_MODE: 'dispatch', WEBHOOK_WORKERS: '10' })).toEqual(tooMany(10));
    expect(problemsOf({ ...ROOMY_GRACE, ORDER_TRANSACTION_MODE: 'all', DATABASE_POOL_SIZE: '4', WEBHOOK_WORKERS: '4' })).toEqual(tooMany(4));
    expect(problemsOf({ ...ROOMY_GRACE, ORDER_TRANSACTION_MODE: 'dispatch', DATABASE_POOL_SIZE: '4', WEBHOOK_WORKERS: '3' })).toEqual({});
  });

  it('ignores the workers of a process that does not dispatch', () => {
    expect(problemsOf({ ...ROOMY_GRACE, ORDER_TRANSACTION_MODE: 'serve', DATABASE_POOL_SIZE: '2', WEBHOOK_WORKERS: '32' })).toEqual({});
  });
});

describe('OrderTransactionConfig: the shutdown grace', () => {
  it('lets a ledger started without SHUTDOWN_GRACE_MS finish a completion retried while its database is away', () => {
    // Inquiry in progress 10 s + vault call 5 s + reversal 3 s + retries 25 s + last connection wait 5 s + drain 2 s.
    expect(shutdownGraceNeeded(loadConfig(OrderTransactionConfig, BASE))).toBe(50_000);
    // The default is the ledger's, above the edge's (edgeShutdownGraceNeeded, 34 s with the defaults), the same for every app.
    expect(loadConfig(OrderTransactionConfig, BASE).SHUTDOWN_GRACE_MS).toBe(50_000);
    expect(problemsOf({})).toEqual({});
  });

  it('refuses a grace the longest stop of a serving ledger would outlast, saying what it must hold', () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '40000' })).toEqual({
      SHUTDOWN_GRACE_MS: expect.stringMatching(/^must be at least 50000: a stopping ledger first ends its shutdown hooks .*25000 retries/),
    });
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '49999' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 50000') });
    // A longer vault call lengthens the longest operation.
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '12000', REFUND_CALL_TIMEOUT_MS: '8000', SHUTDOWN_GRACE_MS: '52999' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 53000') });
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '12000', REFUND_CALL_TIMEOUT_MS: '8000', SHUTDOWN_GRACE_MS: '53000' })).toEqual({});
    // Without the reconciler no inquiry delays the drain.
    expect(problemsOf({ UNKNOWN_INQUIRY_INTERVAL_MS: '0', SHUTDOWN_GRACE_MS: '40000' })).toEqual({});
    expect(problemsOf({ UNKNOWN_INQUIRY_INTERVAL_MS: '0', SHUTDOWN_GRACE_MS: '39999' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 40000') });
  });

  it("keeps the platform's own checks of SHUTDOWN_GRACE_MS beside its own: a whole number of milliseconds, at most 420000", () => {
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '420001' })).toEqual({ SHUTDOWN_GRACE_MS: 'SHUTDOWN_GRACE_MS must not be greater than 420000' });
    expect(problemsOf({ SHUTDOWN_GRACE_MS: '420000' })).toEqual({});
    expect(problemsOf({ SHUTDOWN_GRACE_MS: 'abc' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('SHUTDOWN_GRACE_MS must be an integer number') });
  });

  it('asks of a dispatcher only that it finish its deliveries in flight', () => {
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'dispatch', SHUTDOWN_GRACE_MS: '12000' })).toEqual({});
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'dispatch', SHUTDOWN_GRACE_MS: '11999' })).toEqual({
      SHUTDOWN_GRACE_MS: 'must be at least 12000 (WEBHOOK_TIMEOUT_MS + 2000 to drain): a stopping dispatcher finishes the deliveries in flight',
    });
    // `all` (the standalone profile) serves requests too.
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'all', SHUTDOWN_GRACE_MS: '40000' })).toEqual({ SHUTDOWN_GRACE_MS: expect.stringContaining('at least 50000') });
  });

  it('in `all` mode waits for the longer of the inquiry and the deliveries in flight, which end side by side', () => {
    // Deliveries 20 s outlast the inquiry's 10 s: 20 s + the longest operation 38 s + drain 2 s.
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'all', WEBHOOK_TIMEOUT_MS: '20000', SHUTDOWN_GRACE_MS: '59999' })).toEqual({
      SHUTDOWN_GRACE_MS: expect.stringContaining('at least 60000'),
    });
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'all', WEBHOOK_TIMEOUT_MS: '20000', SHUTDOWN_GRACE_MS: '60000' })).toEqual({});
    // Without the reconciler the deliveries still delay the drain.
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'all', UNKNOWN_INQUIRY_INTERVAL_MS: '0', SHUTDOWN_GRACE_MS: '49999' })).toEqual({
      SHUTDOWN_GRACE_MS: expect.stringContaining('at least 50000'),
    });
  });

  it('reports an unreadable variable of the sum on that variable alone', () => {
    expect(problemsOf({ REFUND_CALL_TIMEOUT_MS: 'soon' })).toEqual({ REFUND_CALL_TIMEOUT_MS: expect.any(String) });
  });
});

describe('OrderTransactionConfig: when a card reservation is taken as abandoned', () => {
  it('takes 2 minutes by default, above the 48 s a live operation may still complete its reservation in', () => {
    expect(loadConfig(OrderTransactionConfig, BASE).ABANDONED_RESERVATION_AFTER_MS).toBe(120_000);
    expect(problemsOf({ ABANDONED_RESERVATION_AFTER_MS: '48000' })).toEqual({});
  });

  it('refuses a wait an operation could still complete its reservation after, naming the terms; follows REFUND_CALL_TIMEOUT_MS', () => {
    expect(problemsOf({ ABANDONED_RESERVATION_AFTER_MS: '47999' })).toEqual({
      ABANDONED_RESERVATION_AFTER_MS: expect.stringMatching(/^must be at least 48000: a live operation may complete its reservation up to REFUND_CALL_TIMEOUT_MS \+ 3000 reversal \+ 25000 retries/),
    });
    const slowerCalls = { NATS_REQUEST_TIMEOUT_MS: '12000', REFUND_CALL_TIMEOUT_MS: '8000', SHUTDOWN_GRACE_MS: '53000' };
    expect(problemsOf({ ...slowerCalls, ABANDONED_RESERVATION_AFTER_MS: '50000' })).toEqual({ ABANDONED_RESERVATION_AFTER_MS: expect.stringContaining('at least 51000') });
    expect(problemsOf({ ...slowerCalls, ABANDONED_RESERVATION_AFTER_MS: '51000' })).toEqual({});
  });

  it('leaves a dispatcher, which resolves nothing, alone', () => {
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'dispatch', ABANDONED_RESERVATION_AFTER_MS: '1000' })).toEqual({});
  });
});

describe('OrderTransactionConfig: PERSONAL_DATA_RETENTION_DAYS', () => {
  it('is 600 days unless set (past the longest chargeback window, 540 days), 0 turning the job off', () => {
    expect(loadConfig(OrderTransactionConfig, BASE).PERSONAL_DATA_RETENTION_DAYS).toBe(600);
    expect(loadConfig(OrderTransactionConfig, { ...BASE, PERSONAL_DATA_RETENTION_DAYS: '0' }).PERSONAL_DATA_RETENTION_DAYS).toBe(0);
    expect(loadConfig(OrderTransactionConfig, { ...BASE, PERSONAL_DATA_RETENTION_DAYS: '3650' }).PERSONAL_DATA_RETENTION_DAYS).toBe(3650);
  });

  it('refuses what is not a whole number of days from 0 to ten years, naming the variable and the rule it breaks', () => {
    const refused = (value: string) => problemsOf({ PERSONAL_DATA_RETENTION_DAYS: value }).PERSONAL_DATA_RETENTION_DAYS;
    expect(refused('-1')).toBe('must be at least 0 (0 turns the job off)');
    expect(refused('3651')).toBe('must be at most 3650 days (ten years)');
    expect(refused('1.5')).toContain('must be a whole number of days');
    expect(refused('600d')).toContain('must be a whole number of days');
    expect(refused('P600D')).toContain('must be a whole number of days');
  });
});
