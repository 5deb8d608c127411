import Redis from 'ioredis';

export interface RedisOptions {
  url: string;
  /** Prepended to every key, commands and scripts alike; separates deployments and test runs. */
  keyPrefix: string;
  name: string;
}

/**
 * An ioredis client that fails fast while Redis is away (commands error at once rather than
 * queueing without bound) and reconnects on its own when it returns. Commands issued in the
 * same tick (concurrent requests' throttle checks and lock scripts) go out together, one socket
 * write and one read for all, instead of a write system call each (ioredis's auto-pipelining;
 * docs/performance.md). Each command still gets its own answer, in order.
 */
export function createRedisClient(options: RedisOptions): Redis {
  return new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    connectionName: options.name,
    lazyConnect: false,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(50 * attempt, 1_000),
  });
}

export async function pingRedis(redis: Redis): Promise<void> {
  const answer = await redis.ping();
  if (answer !== 'PONG') {
    throw new Error(`unexpected PING answer: ${answer}`);
  }
}
