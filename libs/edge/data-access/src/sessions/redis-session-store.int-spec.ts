import { createRedisClient } from '@gateway/platform';
import { testInfra } from '@gateway/testing';
import type Redis from 'ioredis';
import { RedisSessionStore } from './redis-session-store';
import { describeSessionStoreContract } from './testing/session-store-contract';

let redis: Redis;

beforeAll(async () => {
  redis = createRedisClient({ url: testInfra.redisUrl, keyPrefix: process.env.TEST_REDIS_PREFIX ?? 'test:', name: 'session-store-test' });
  await new Promise((resolve) => redis.once('ready', resolve));
});

afterAll(() => {
  redis.disconnect();
});

describeSessionStoreContract('Redis', () => new RedisSessionStore(redis));
