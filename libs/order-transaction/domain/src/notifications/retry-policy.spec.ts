import { afterFailedAttempt, RetryPolicy } from './retry-policy';

const HOUR = 3_600_000;
const policy: RetryPolicy = { baseDelayMs: 10_000, maxDelayMs: HOUR, windowMs: 24 * HOUR };
const start = new Date('2025-01-01T00:00:00.000Z');

describe('afterFailedAttempt', () => {
  it('doubles the wait with each failure, jittered between half and all of the step, up to the maximum', () => {
    const waits = (random: number) =>
      [1, 2, 3, 4, 12, 30].map((attempts) => {
        const next = afterFailedAttempt(policy, attempts, start, start, () => random);
        return next.status === 'PENDING' ? next.nextAttemptAt.getTime() - start.getTime() : null;
      });
    expect(waits(0)).toEqual([5_000, 10_000, 20_000, 40_000, HOUR / 2, HOUR / 2]);
    expect(waits(0.999999).map((w) => Math.round(w! / 10) * 10)).toEqual([10_000, 20_000, 40_000, 80_000, HOUR, HOUR]);
  });

  it('spreads the retries of notifications that failed together', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const times = new Set(Array.from({ length: 50 }, () => (afterFailedAttempt(policy, 3, start, start, random) as { nextAttemptAt: Date }).nextAttemptAt.getTime()));
    expect(times.size).toBeGreaterThan(40);
  });

  it('keeps retrying for the whole window, then fails on the first attempt at or after its end', () => {
    let now = start;
    let attempts = 0;
    let outcome = afterFailedAttempt(policy, ++attempts, start, now);
    while (outcome.status === 'PENDING') {
      now = outcome.nextAttemptAt;
      outcome = afterFailedAttempt(policy, ++attempts, start, now);
    }
    expect(now.getTime() - start.getTime()).toBeGreaterThanOrEqual(24 * HOUR);
    expect(now.getTime() - start.getTime()).toBeLessThan(25 * HOUR);
    expect(attempts).toBeGreaterThan(20);
  });

  it('fails an attempt made exactly at the end of the window, not one a millisecond before', () => {
    const end = start.getTime() + policy.windowMs;
    expect(afterFailedAttempt(policy, 9, start, new Date(end - 1)).status).toBe('PENDING');
    expect(afterFailedAttempt(policy, 9, start, new Date(end))).toEqual({ status: 'FAILED' });
  });
});
