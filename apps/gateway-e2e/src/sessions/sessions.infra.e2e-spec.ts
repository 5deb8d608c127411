import path from 'node:path';
import Redis from 'ioredis';
import { freePort, TEST_CARD, TEST_CARD_NUMBERS, TEST_EXPIRY, testInfra, waitFor } from '@gateway/testing';
import { call, checkedFetch, createMerchant, TestMerchant } from '../support/gateway-client';
import { readState } from '../support/e2e-state';
import { httpOk, StartedProcess, startApp } from '../support/processes';

jest.setTimeout(90_000);

/**
 * Sessions where the distributed profile keeps them, in Redis: an edge of this file's own with a
 * short session lifetime (expiry), and the run's Redis keys read directly (no card in clear).
 */
describe('payment sessions in Redis', () => {
  const state = readState();
  let shortLived: StartedProcess;
  let shortBase: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    merchant = await createMerchant();
    const port = await freePort();
    shortBase = `http://127.0.0.1:${port}`;
    shortLived = startApp(
      'api-edge',
      { ...state.appEnv['api-edge'], HTTP_PORT: String(port), SESSION_TTL_MS: '120000' },
      path.join(state.logDir, 'sessions'),
      'short-session-edge',
    );
    await waitFor(() => httpOk(`${shortBase}/health/ready`), { timeoutMs: 60_000, what: 'the short-session edge' });
  });

  afterAll(async () => {
    await shortLived?.stop();
  });

  async function onShortEdge(method: string, urlPath: string, body?: object) {
    const response = await checkedFetch(shortBase, urlPath, {
      method,
      headers: { authorization: merchant.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  it('answers an expired session with a clear 400, in operations and on the resource, its card data deleted', async () => {
    const created = await onShortEdge('POST', `${merchant.base()}/session`, {
      sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.session.id;
    // The key lives the edge's lifetime (the shortest allowed, 2 minutes), brought forward here
    // rather than waited for: Redis deletes it as it would then.
    const redisForExpiry = new Redis(testInfra.redisUrl);
    try {
      const lifetime = await redisForExpiry.pttl(`${state.redisPrefix}session:${id}`);
      expect(lifetime).toBeGreaterThan(100_000);
      expect(lifetime).toBeLessThanOrEqual(120_000);
      await redisForExpiry.pexpire(`${state.redisPrefix}session:${id}`, 1);
    } finally {
      redisForExpiry.disconnect();
    }
    await waitFor(async () => (await onShortEdge('GET', `${merchant.base()}/session/${id}`)).status === 400, { timeoutMs: 15_000, what: 'expiry' });

    const retrieved = await onShortEdge('GET', `${merchant.base()}/session/${id}`);
    expect(retrieved.body.error).toMatchObject({ cause: 'INVALID_REQUEST', field: 'sessionid', explanation: expect.stringContaining('expired') });
    const operation = await onShortEdge('PUT', `${merchant.base()}/order/late-${id.slice(-5)}/transaction/v1`, {
      apiOperation: 'VERIFY',
      session: { id },
      order: { currency: 'USD' },
      sourceOfFunds: { type: 'CARD' },
    });
    expect(operation.status).toBe(400);
    expect(operation.body.error).toMatchObject({ field: 'session.id', validationType: 'INVALID', explanation: expect.stringContaining('expired') });

    const redis = new Redis(testInfra.redisUrl);
    try {
      expect(await redis.get(`${state.redisPrefix}session:${id}`)).toBeNull();
      expect(await redis.get(`${state.redisPrefix}session-seen:${id}`)).toBe(merchant.id);
    } finally {
      redis.disconnect();
    }
  });

  it('never holds card data readable in clear: no key of the run contains a test card number', async () => {
    const created = await call<{ session: { id: string } }>('POST', `${merchant.base()}/session`, { authorization: merchant.authorization });
    await call('PUT', `${merchant.base()}/session/${created.body.session.id}`, {
      authorization: merchant.authorization,
      body: { sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '100', nameOnCard: 'Ada Lovelace' } } } },
    });
    const redis = new Redis(testInfra.redisUrl);
    const values: string[] = [];
    try {
      for await (const keys of redis.scanStream({ match: `${state.redisPrefix}*`, count: 500 })) {
        for (const key of keys as string[]) {
          if ((await redis.type(key)) === 'string') {
            values.push((await redis.get(key)) ?? '');
          }
        }
      }
    } finally {
      redis.disconnect();
    }
    const session = values.find((v) => v.includes(created.body.session.id) && v.includes('"sealed"'));
    expect(session).toBeDefined();
    expect(JSON.parse(session!).card.masked).toMatchObject({ number: '512345xxxxxx0008' });
    for (const pan of TEST_CARD_NUMBERS) {
      expect(values.filter((v) => v.includes(pan))).toEqual([]);
    }
  });
});
