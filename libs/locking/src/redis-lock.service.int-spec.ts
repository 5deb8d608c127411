import Redis from 'ioredis';
import { newRunId, testInfra } from '@gateway/testing';
import { FENCE_TTL_MS, RedisLockService } from './redis-lock.service';
import { describeLockContract } from './testing/lock-contract';

const prefix = `${process.env.TEST_REDIS_PREFIX ?? `test:${newRunId()}:`}locking:`;
const redis = new Redis(testInfra.redisUrl, { keyPrefix: prefix });

afterAll(async () => {
  // The run's global teardown deletes every key under the run's prefix.
  await redis.quit();
});

describeLockContract('Redis', () => new RedisLockService(redis));

describe('Redis fencing tokens', () => {
  it('keep growing after Redis loses the counter', async () => {
    const locks = new RedisLockService(redis);
    const key = `lost-counter:${Date.now()}`;
    const before = await locks.acquire(key, { waitMs: 0, ttlMs: 5_000 });
    await before!.release();
    // What a Redis restart without persistence does to the fence counter.
    await redis.del(`fence:${key}`);
    const after = await locks.acquire(key, { waitMs: 0, ttlMs: 5_000 });
    expect(BigInt(after!.fencingToken)).toBeGreaterThan(BigInt(before!.fencingToken));
  });

  it('keep growing when the last token is ahead of the Redis clock (the clock stepped back)', async () => {
    const locks = new RedisLockService(redis);
    const key = `clock-behind:${Date.now()}`;
    // A token issued while the clock read an hour later than it does now.
    const ahead = BigInt(Date.now() + 3_600_000) * 1000n;
    await redis.set(`fence:${key}`, ahead.toString(), 'PX', 60_000);
    const lease = await locks.acquire(key, { waitMs: 0, ttlMs: 5_000 });
    expect(BigInt(lease!.fencingToken)).toBe(ahead + 1n);
  });

  it('are given again to a grant tried twice by one owner (a command ioredis sent again after its answer was lost)', async () => {
    const service = new RedisLockService(redis);
    const commands = redis as unknown as {
      gatewayLockAcquire(lockKey: string, fenceKey: string, owner: string, ttlMs: number, fenceTtlMs: number): Promise<string | null>;
    };
    const key = `resent:${Date.now()}`;
    const owner = 'owner-whose-answer-was-lost';
    const first = await commands.gatewayLockAcquire(`lock:${key}`, `fence:${key}`, owner, 5_000, FENCE_TTL_MS);
    const again = await commands.gatewayLockAcquire(`lock:${key}`, `fence:${key}`, owner, 5_000, FENCE_TTL_MS);
    expect(first).not.toBeNull();
    expect(again).toBe(first);
    // Anyone else still waits for the key: the lease is one owner's.
    expect(await service.acquire(key, { waitMs: 0, ttlMs: 5_000 })).toBeNull();
  });

  it('are counted under a key that outlives the lease by an hour, not longer', async () => {
    const locks = new RedisLockService(redis);
    const key = `fence-ttl:${Date.now()}`;
    const lease = await locks.acquire(key, { waitMs: 0, ttlMs: 5_000 });
    await lease!.release();
    const ttl = await redis.pttl(`fence:${key}`);
    expect(FENCE_TTL_MS).toBe(3_600_000);
    expect(ttl).toBeGreaterThan(FENCE_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(FENCE_TTL_MS);
  });
});
