import type { Socket } from 'node:net';
import type Redis from 'ioredis';
import { GatewayError, JsonObject, SUBJECTS } from '@gateway/contracts';
import { Lease, RedisLockService } from '@gateway/locking';
import { REDIS_CLIENT, standaloneBus } from '@gateway/platform';
import { newRunId, TEST_CARD, TEST_EXPIRY, testInfra } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

/**
 * An order operation's Redis round trips before its service is asked, against the real Redis
 * (docs/decisions/authentication-throttling.md, amendment 2026-11-26 (4)): the throttle's
 * admission and the order lock's first try go out in one socket write (ioredis's
 * auto-pipelining) and come back together. A request the throttle refuses is answered as
 * before and holds no lock once answered; a busy order still waits and answers LOCK_FAILURE.
 */
const VERIFY = {
  apiOperation: 'VERIFY',
  order: { currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
};

/** The writes to Redis that carried the merchant's keys (its throttle counters, its orders' locks), counted at the moment each service request arrived. */
const writesWhenAsked: number[] = [];
let writes: { merchantId: string; count: number } = { merchantId: '', count: 0 };

let edge: EdgeTestApp;
let redis: Redis;

beforeAll(async () => {
  standaloneBus.register(SUBJECTS.orderTransaction.verify, async () => {
    writesWhenAsked.push(writes.count);
    return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
  });
  standaloneBus.register(SUBJECTS.orderTransaction.retrieveOrder, async () => {
    throw new GatewayError('NOT_FOUND', { explanation: 'No such order.' });
  });
  edge = await startEdgeTestApp({
    env: {
      GATEWAY_PROFILE: 'distributed',
      REDIS_URL: testInfra.redisUrl,
      REDIS_KEY_PREFIX: `${process.env.TEST_REDIS_PREFIX ?? `test:${newRunId()}:`}edge-round-trips:`,
      AUTH_FAILURES_PER_MERCHANT: '2',
      AUTH_FAILURES_PER_ADDRESS: '1000',
    },
  });
  redis = edge.running.app.get<Redis>(REDIS_CLIENT);
  // The edge's own connection to Redis: every socket write that carries the merchant under test.
  const socket = (redis as unknown as { stream: Socket }).stream;
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (writes.merchantId && String(chunk).includes(writes.merchantId)) {
      writes.count++;
    }
    return write(chunk, ...rest);
  }) as typeof socket.write;
});

afterAll(async () => {
  await edge?.close();
  standaloneBus.unregister(SUBJECTS.orderTransaction.verify);
  standaloneBus.unregister(SUBJECTS.orderTransaction.retrieveOrder);
});

interface Answer {
  status: number;
  body: JsonObject;
  headers: Record<string, unknown>;
}

async function put(merchant: TestMerchantCredentials, orderId: string, body: JsonObject = VERIFY, password?: string): Promise<Answer> {
  const authorization = password === undefined ? merchant.authorization : `Basic ${Buffer.from(`merchant.${merchant.id}:${password}`).toString('base64')}`;
  const response = await edge.fastify.inject({
    method: 'PUT',
    url: `/api/rest/version/100/merchant/${merchant.id}/order/${orderId}/transaction/t-1`,
    remoteAddress: '198.51.100.7',
    headers: { authorization, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

/**
 * Whether the order's lock is held, asked over the edge's own connection: Redis runs a
 * connection's commands in order, so this sees every release the edge sent before it.
 */
async function locked(merchant: TestMerchantCredentials, orderId: string): Promise<boolean> {
  return (await redis.exists(`lock:${merchant.id}:${orderId}`)) === 1;
}

async function watched(settings: Record<string, unknown> = {}): Promise<TestMerchantCredentials> {
  const merchant = await edge.createMerchant(settings);
  // The first request loads the scripts into Redis (a round trip of its own, once per connection).
  expect((await put(merchant, 'warm-up')).status).toBe(201);
  // Its lock's release written before the count starts.
  expect(await locked(merchant, 'warm-up')).toBe(false);
  writes = { merchantId: merchant.id, count: 0 };
  writesWhenAsked.length = 0;
  return merchant;
}

describe("an order operation's Redis round trips (distributed edge, real Redis)", () => {
  it("asks its service after one write to Redis: the throttle's admission and the order lock together", async () => {
    const merchant = await watched({ rateLimitPerSecond: 100 });
    expect((await put(merchant, 'o-one-trip')).status).toBe(201);
    expect(writesWhenAsked).toEqual([1]);
    expect(await locked(merchant, 'o-one-trip')).toBe(false);
  });

  it('answers a request over its rate limit 503 as always, and holds no lock once answered', async () => {
    const merchant = await watched({ rateLimitPerSecond: 1 });
    const refused = await put(merchant, 'o-over-rate');
    expect(refused).toMatchObject({
      status: 503,
      body: { error: { cause: 'SERVER_BUSY', explanation: "The merchant's request rate limit is exceeded. Please retry later." }, result: 'ERROR' },
      headers: { 'retry-after': expect.stringMatching(/^[1-9][0-9]*$/) },
    });
    expect(writesWhenAsked).toEqual([]);
    expect(await locked(merchant, 'o-over-rate')).toBe(false);
  });

  it('answers the right password of a blocked merchant 503 as always, and holds no lock once answered', async () => {
    const merchant = await watched();
    for (let i = 0; i < 2; i++) {
      expect((await put(merchant, 'o-blocked', VERIFY, `${merchant.password}x`)).status).toBe(401);
    }
    const refused = await put(merchant, 'o-blocked');
    expect(refused).toMatchObject({
      status: 503,
      body: { error: { cause: 'SERVER_BUSY', explanation: 'Too many failed authentication attempts. Please retry later.' }, result: 'ERROR' },
    });
    expect(writesWhenAsked).toEqual([]);
    expect(await locked(merchant, 'o-blocked')).toBe(false);
  });

  it('answers an invalid request 400 on its field, without asking the service, and leaves the order unlocked', async () => {
    const merchant = await watched();
    const invalid = await put(merchant, 'o-invalid', { ...VERIFY, order: { currency: 'US' } });
    expect(invalid).toMatchObject({ status: 400, body: { error: { cause: 'INVALID_REQUEST', field: 'order.currency' } } });
    expect(writesWhenAsked).toEqual([]);
    expect(await locked(merchant, 'o-invalid')).toBe(false);
  });

  it("waits for a busy order as before: LOCK_FAILURE while another holds it, the holder's lease untouched", async () => {
    const merchant = await watched();
    let holder: Lease | null = await new RedisLockService(redis).acquire(`${merchant.id}:o-busy`, { waitMs: 0, ttlMs: 30_000 });
    try {
      const refused = await put(merchant, 'o-busy');
      expect(refused).toMatchObject({ status: 201, body: { result: 'FAILURE', response: { gatewayCode: 'LOCK_FAILURE' } } });
      expect(writesWhenAsked).toEqual([]);
      expect(await holder!.extend(30_000)).toBe(true);
      await holder!.release();
      holder = null;
      expect((await put(merchant, 'o-busy')).status).toBe(201);
      expect(await locked(merchant, 'o-busy')).toBe(false);
    } finally {
      await holder?.release();
    }
  });
});
