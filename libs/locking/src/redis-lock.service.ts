import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { AcquireOptions, acquireWithin, Lease, LockService } from './lock';

/**
 * Grants the lock when the key is free (SET NX PX with a random owner) and, in the same
 * script, issues the fencing token: max(last + 1, Redis server time in microseconds). The time
 * floor keeps tokens growing even if Redis loses the counter (a restart without persistence),
 * so the ledger never sees an older token after a newer one.
 *
 * A try whose owner already holds the key gets the token of its own grant back: ioredis sends
 * a command again after a reconnect, and a grant whose answer was lost with the connection
 * would otherwise find the key taken (by itself) on every retry, and the order would answer
 * LOCK_FAILURE until the lease lapsed. No other grant can have moved the counter meanwhile:
 * the key has been this owner's since.
 */
const ACQUIRE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('GET', KEYS[2])
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  local fence = last + 1
  if now > fence then fence = now end
  local token = string.format('%.0f', fence)
  redis.call('SET', KEYS[2], token, 'PX', ARGV[3])
  return token
end
return false
`;

/** Only the owner may release: compare and delete atomically. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

const EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/**
 * How long an order's fence counter outlives its last grant. The counter matters only while the
 * Redis clock reads earlier than the last token it issued (a clock stepped back); after that the
 * time floor alone keeps tokens growing. An hour covers any step a time service makes, and bounds
 * the keys: one per order locked within the hour (about 100 B each), where a day kept 24 times as
 * many (docs/decisions/fencing-tokens-survive-redis-loss.md, amendment 2026-11-26).
 */
export const FENCE_TTL_MS = 60 * 60 * 1000;

type LockCommands = {
  gatewayLockAcquire(lockKey: string, fenceKey: string, owner: string, ttlMs: number, fenceTtlMs: number): Promise<string | null>;
  gatewayLockRelease(lockKey: string, owner: string): Promise<number>;
  gatewayLockExtend(lockKey: string, owner: string, ttlMs: number): Promise<number>;
};

export class RedisLockService implements LockService {
  private readonly redis: Redis & LockCommands;

  constructor(redis: Redis) {
    if (!('gatewayLockAcquire' in redis)) {
      redis.defineCommand('gatewayLockAcquire', { numberOfKeys: 2, lua: ACQUIRE });
      redis.defineCommand('gatewayLockRelease', { numberOfKeys: 1, lua: RELEASE });
      redis.defineCommand('gatewayLockExtend', { numberOfKeys: 1, lua: EXTEND });
    }
    this.redis = redis as Redis & LockCommands;
  }

  acquire(key: string, options: AcquireOptions): Promise<Lease | null> {
    // Unguessable and unique per try; randomUUID draws from a cached block of CSPRNG bytes, where
    // randomBytes(16) asks OpenSSL for every lease (docs/performance.md, "Tuning done").
    const owner = randomUUID();
    const lockKey = `lock:${key}`;
    const fenceKey = `fence:${key}`;
    return acquireWithin(async () => {
      const token = await this.redis.gatewayLockAcquire(lockKey, fenceKey, owner, options.ttlMs, FENCE_TTL_MS);
      return token === null ? null : this.lease(key, lockKey, owner, token);
    }, options.waitMs);
  }

  private lease(key: string, lockKey: string, owner: string, fencingToken: string): Lease {
    return {
      key,
      fencingToken,
      release: async () => (await this.redis.gatewayLockRelease(lockKey, owner)) === 1,
      extend: async (ttlMs: number) => (await this.redis.gatewayLockExtend(lockKey, owner, ttlMs)) === 1,
    };
  }
}
