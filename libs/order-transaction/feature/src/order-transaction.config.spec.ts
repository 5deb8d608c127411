import { ConfigError, loadConfig } from '@gateway/platform';
import { OrderTransactionConfig } from './order-transaction.config';

const BASE = { DATABASE_URL: 'postgres://ot@127.0.0.1/gw' };

function problemsOf(env: Record<string, string>): Record<string, string> {
  try {
    loadConfig(OrderTransactionConfig, { ...BASE, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return Object.fromEntries(err.problems.map((p) => [p.variable, p.problem]));
    throw err;
  }
  return {};
}

describe('OrderTransactionConfig: the calls under the edge\'s wait', () => {
  const tooLong = (timeout: number) => ({
    REFUND_CALL_TIMEOUT_MS: `must be shorter than NATS_REQUEST_TIMEOUT_MS less the timed-out reversal's wait (${timeout} - 3000 ms): an operation whose call timed out must be answered before the edge stops waiting`,
  });

  it('takes the defaults: a 5 s call and a 3 s reversal inside the 10 s the edge waits', () => {
    expect(problemsOf({})).toEqual({});
    expect(problemsOf({ REFUND_CALL_TIMEOUT_MS: '6999' })).toEqual({});
  });

  it('refuses a call that, with the reversal after it, outlasts the edge\'s wait: the merchant would be told SERVER_BUSY while money moved', () => {
    expect(problemsOf({ REFUND_CALL_TIMEOUT_MS: '7000' })).toEqual(tooLong(10000));
    expect(problemsOf({ REFUND_CALL_TIMEOUT_MS: '10000' })).toEqual(tooLong(10000));
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '5000' })).toEqual(tooLong(5000));
    // Seconds where milliseconds are meant: 60 ms for the edge's whole wait.
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '60' })).toEqual(tooLong(60));
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'all', REFUND_CALL_TIMEOUT_MS: '8000' })).toEqual(tooLong(10000));
  });

  it('leaves a dispatcher, which answers no requests, alone; a malformed timeout is reported on its own variable', () => {
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'dispatch', REFUND_CALL_TIMEOUT_MS: '10000' })).toEqual({});
    expect(problemsOf({ NATS_REQUEST_TIMEOUT_MS: '10s' })).toEqual({ NATS_REQUEST_TIMEOUT_MS: expect.any(String) });
  });
});

describe('OrderTransactionConfig: dispatcher workers against the pool', () => {
  const tooMany = (pool: number) => ({
    WEBHOOK_WORKERS: `must be fewer than DATABASE_POOL_SIZE (${pool}) where this process dispatches: each worker holds a connection while it delivers, and the outbox's other queries need one beside them`,
  });

  it('refuses as many workers as pooled connections where notifications are dispatched', () => {
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'dispatch', WEBHOOK_WORKERS: '10' })).toEqual(tooMany(10));
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'all', DATABASE_POOL_SIZE: '4', WEBHOOK_WORKERS: '4' })).toEqual(tooMany(4));
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'dispatch', DATABASE_POOL_SIZE: '4', WEBHOOK_WORKERS: '3' })).toEqual({});
  });

  it('ignores the workers of a process that does not dispatch', () => {
    expect(problemsOf({ ORDER_TRANSACTION_MODE: 'serve', DATABASE_POOL_SIZE: '2', WEBHOOK_WORKERS: '32' })).toEqual({});
  });
});
