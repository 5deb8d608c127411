import Redis from 'ioredis';
import { dropDatabase, keptForAtRestScan, testInfra } from '@gateway/testing';
import { workerDatabase } from './int-global-setup';

export default async function teardown(): Promise<void> {
  if (keptForAtRestScan()) {
    // Everything stays for the at-rest scan after the whole run, which then removes it.
    return;
  }
  const runDatabase = process.env.TEST_RUN_DATABASE;
  if (runDatabase && !process.env.TEST_KEEP_DATABASE) {
    for (let worker = 1; worker <= Number(process.env.TEST_INT_WORKERS ?? '0'); worker += 1) {
      await dropDatabase(workerDatabase(runDatabase, worker));
    }
  }
  const prefix = process.env.TEST_RUN_REDIS_PREFIX;
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
