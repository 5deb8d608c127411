import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { testServers } from '../test-support';
import { createRedisClient } from './redis';

let redis: Redis;
const prefix = `${process.env.TEST_REDIS_PREFIX ?? 'test:'}redis-client:${randomUUID()}:`;

beforeAll(async () => {
  redis = createRedisClient({ url: testServers.redisUrl, keyPrefix: prefix, name: 'redis-client-test' });
  await new Promise((resolve) => redis.once('ready', resolve));
});

afterAll(async () => {
  await redis.del('a', 'b');
  redis.disconnect();
});

describe('createRedisClient', () => {
  it('writes each command as it is issued, without auto-pipelining: its pipelines outlive scavenges', async () => {
    const writes = jest.spyOn(redis.stream, 'write');
    try {
      const answers = Promise.all([redis.set('a', '1'), redis.incr('a'), redis.get('a'), redis.set('b', 'x'), redis.get('b')]);

      expect(redis.autoPipelineQueueSize).toBe(0);
      await expect(answers).resolves.toEqual(['OK', 2, '2', 'OK', 'x']);
      expect(writes).toHaveBeenCalledTimes(5);
    } finally {
      writes.mockRestore();
    }
  });

  it('answers a failing command with its error without failing the others sent with it', async () => {
    const answers = await Promise.allSettled([redis.set('a', 'text'), redis.incr('a'), redis.get('a')]);

    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
