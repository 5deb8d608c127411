import Redis from 'ioredis';
import { dropDatabase, keptForAtRestScan, testInfra } from '@gateway/testing';

export default async function teardown(): Promise<void> {
  if (keptForAtRestScan()) {
    // Everything stays for the at-rest scan after the whole run, which then removes it.
    return;
  }
  if (process.env.TEST_DATABASE && !process.env.TEST_KEEP_DATABASE) {
    await dropDatabase(process.env.TEST_DATABASE);
  }
  const prefix = process.env.TEST_REDIS_PREFIX;
  if (prefix) {
    const redis = new Redis(testInfra.redisUrl);
    const stream = redis.scanStream({ match: `${prefix}*`, count: 500 });
    for await (const keys of stream) {
      if ((keys as string[]).length > 0) {
        await redis.del(...(keys as string[]));
      }
    }
    redis.disconnect();
  }
}
