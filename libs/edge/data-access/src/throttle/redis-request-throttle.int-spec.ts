import Redis from 'ioredis';
import { newRunId, testInfra } from '@gateway/testing';
import { RedisRequestThrottle } from './redis-request-throttle';
import { CONTRACT_LIMITS, describeThrottleContract } from './testing/request-throttle-contract';

const prefix = `${process.env.TEST_REDIS_PREFIX ?? `test:${newRunId()}:`}throttle:`;
const redis = new Redis(testInfra.redisUrl, { keyPrefix: prefix });

afterAll(async () => {
  // The run's global teardown deletes every key under the run's prefix.
  await redis.quit();
});

describeThrottleContract('Redis', (limits) => new RedisRequestThrottle(redis, limits));

describe('Redis throttle', () => {
  it('holds one limit for every edge replica sharing the Redis', async () => {
    const clients = [0, 1].map(() => new Redis(testInfra.redisUrl, { keyPrefix: prefix }));
    const replicas = clients.map((client) => new RedisRequestThrottle(client, CONTRACT_LIMITS));
    try {
      const merchantId = `m-${newRunId()}`;
      const verdicts = await Promise.all(
        Array.from({ length: 10 }, (_, i) => replicas[i % 2].admit({ merchantId, address: 'a', subjectToFailureBlock: false, ratePerSecond: 4 })),
      );
      expect(verdicts.filter((v) => !v.throttled)).toHaveLength(4);
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });

  it('gives every key it writes an expiry within its window', async () => {
    const throttle = new RedisRequestThrottle(redis, CONTRACT_LIMITS);
    const merchantId = `m-${newRunId()}`;
    await throttle.recordFailure({ merchantId, address: `a-${merchantId}` });
    await throttle.admit({ merchantId, address: 'a', subjectToFailureBlock: false, ratePerSecond: 2 });
    const ttls = await Promise.all(
      [`throttle:fail:merchant:${merchantId}`, `throttle:fail:address:a-${merchantId}`, `throttle:rate:${merchantId}`].map((k) => redis.pttl(k)),
    );
    for (const ttl of ttls) {
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(CONTRACT_LIMITS.failureWindowMs);
    }
  });
});
