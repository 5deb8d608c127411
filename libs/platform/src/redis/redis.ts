import Redis from 'ioredis';

export interface RedisOptions {
  url: string;
  /** Prepended to every key, commands and scripts alike; separates deployments and test runs. */
  keyPrefix: string;
  name: string;
}

/**
 * An ioredis client that fails fast while Redis is away (commands error at once rather than
 * queueing without bound) and reconnects on its own when it returns. Without ioredis's
 * auto-pipelining: it sends each tick's commands through a Pipeline, and every Pipeline defines
 * its own `length` getter, which V8 holds in an accessor pair it always allocates in the old
 * generation. Scavenges count such old objects as roots, dead or not, so each Pipeline (its
 * commands, and the requests awaiting them) survived until a full GC: the edge promoted 1.1-1.2 MB
 * per scavenge and ran a full GC every 2 s (docs/performance.md, "Where the tail's time goes").
 */
export function createRedisClient(options: RedisOptions): Redis {
  return new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    connectionName: options.name,
    lazyConnect: false,
    enableOfflineQueue: false,
    enableAutoPipelining: false,
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
