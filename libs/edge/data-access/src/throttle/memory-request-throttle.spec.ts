import { MemoryRequestThrottle } from './memory-request-throttle';
import { CONTRACT_LIMITS, describeThrottleContract } from './testing/request-throttle-contract';

describeThrottleContract('in-memory', (limits) => new MemoryRequestThrottle(limits));

describe('in-memory throttle memory', () => {
  it('holds at most its cap of failure counters under a flood of guessed merchant ids, dropping the oldest', async () => {
    const throttle = new MemoryRequestThrottle({ ...CONTRACT_LIMITS, failureWindowMs: 60_000 }, undefined, 50);
    for (let i = 0; i < 500; i++) {
      await throttle.recordFailure({ merchantId: `guess-${i}`, address: `10.0.${Math.floor(i / 250)}.${i % 250}` });
    }
    expect(throttle.failureEntries).toBe(50);
    // The newest guesses are still counted.
    for (let i = 0; i < 3; i++) await throttle.recordFailure({ merchantId: 'guess-499', address: `10.1.0.${i}` });
    expect(await throttle.admit({ merchantId: 'guess-499', address: '10.2.0.1', subjectToFailureBlock: true, ratePerSecond: 0 })).toMatchObject({
      throttled: true,
    });
  });
});

describe('in-memory throttle cap', () => {
  it('drops counters still counting before a block in force, however old the block', async () => {
    const throttle = new MemoryRequestThrottle({ ...CONTRACT_LIMITS, failureWindowMs: 60_000 }, undefined, 50);
    for (let i = 0; i < CONTRACT_LIMITS.failuresPerMerchant; i++) {
      await throttle.recordFailure({ merchantId: 'MERCHANT1', address: `10.3.0.${i}` });
    }
    for (let i = 0; i < 500; i++) {
      await throttle.recordFailure({ merchantId: `guess-${i}`, address: `10.0.${Math.floor(i / 250)}.${i % 250}` });
    }
    expect(throttle.failureEntries).toBe(50);
    expect(await throttle.admit({ merchantId: 'MERCHANT1', address: '10.2.0.1', subjectToFailureBlock: true, ratePerSecond: 0 })).toMatchObject({
      throttled: true,
    });
  });

  it('drops the oldest blocks too when blocks alone pass the cap: memory stays bounded', async () => {
    // One failure blocks a merchant: each failure adds a block.
    const throttle = new MemoryRequestThrottle({ ...CONTRACT_LIMITS, failuresPerMerchant: 1, failureWindowMs: 60_000, blockMs: 60_000 }, undefined, 5);
    for (let m = 0; m < 10; m++) {
      await throttle.recordFailure({ merchantId: `MERCHANT${m}`, address: `10.4.0.${m}` });
    }
    expect(throttle.failureEntries).toBe(5);
  });

  it('still counts, and blocks, a merchant whose failures come after the cap filled with blocks', async () => {
    const throttle = new MemoryRequestThrottle({ ...CONTRACT_LIMITS, failuresPerMerchant: 3, failureWindowMs: 60_000, blockMs: 60_000 }, undefined, 10);
    for (let m = 0; m < 10; m++) {
      for (let i = 0; i < 3; i++) await throttle.recordFailure({ merchantId: `GUESS${m}`, address: `10.5.${m}.${i}` });
    }
    for (let i = 0; i < 3; i++) await throttle.recordFailure({ merchantId: 'VICTIM', address: `10.6.0.${i}` });
    expect(await throttle.admit({ merchantId: 'VICTIM', address: '10.7.0.1', subjectToFailureBlock: true, ratePerSecond: 0 })).toMatchObject({
      throttled: true,
    });
    expect(throttle.failureEntries).toBeLessThanOrEqual(10);
  });
});
