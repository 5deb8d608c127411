import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { JsonObject } from '@gateway/contracts';
import { REDIS_CLIENT } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import {
  callAs,
  GatewayResponse,
  startSessionGateway,
  TestGateway,
  TestGatewayMerchant,
} from './testing/test-gateway';

/**
 * The merchant's retry of an operation that succeeded with a payment session, sent after the
 * session expired or was deleted (docs/decisions/payment-sessions.md, amendment 2026-11-27): the
 * stored response, as any replay, not the session's 400, or a merchant whose first attempt timed
 * out on their side would believe a payment failed that moved money. A request that is no such
 * retry (a first attempt, another body) still gets the session's 400, and nothing is done for it.
 * The edge keeps sessions in the run's Redis (its client carries the run's key prefix), the vault
 * seals their cards, order-transaction runs VERIFY and PAY on the test acquirer, over HTTP.
 */
let gateway: TestGateway;
let merchant: TestGatewayMerchant;
let redis: Redis;

beforeAll(async () => {
  gateway = await startSessionGateway({ name: 'Expired session replays', idPrefix: 'INTXR' });
  merchant = await gateway.newMerchant();
  redis = gateway.running.app.get<Redis>(REDIS_CLIENT);
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

function call(method: string, path: string, body?: JsonObject): Promise<GatewayResponse> {
  return callAs(gateway, merchant, method, path, body);
}

/** A session whose values the operation takes: it fills the body, so the filled body is not the body sent. */
async function newSession(fields: JsonObject): Promise<string> {
  const created = await call('POST', '/session', {
    ...fields,
    sourceOfFunds: { provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
  });
  expect(created.status).toBe(201);
  return String((created.body.session as JsonObject).id);
}

/** The session's data is gone as at expiry; the notice that it existed stays ("expired"). */
async function expire(sessionId: string): Promise<void> {
  expect(await redis.del(`session:${sessionId}`)).toBe(1);
}

/** Deleted outright: no notice either ("must name a session of this merchant"). */
async function forget(sessionId: string): Promise<void> {
  await redis.del(`session:${sessionId}`, `session-seen:${sessionId}`);
}

function orderId(): string {
  return `xr-${randomBytes(5).toString('hex')}`;
}

async function transactionsOn(order: string): Promise<string[]> {
  const retrieved = await call('GET', `/order/${order}`);
  expect(retrieved.status).toBe(200);
  return (retrieved.body.transaction as JsonObject[]).map((t) => String((t.transaction as JsonObject).id));
}

function expectSessionRefusal(response: GatewayResponse, sessionId: string, reason: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.body).toEqual({
    error: {
      cause: 'INVALID_REQUEST',
      explanation: expect.stringMatching(reason),
      field: 'session.id',
      validationType: 'INVALID',
    },
    result: 'ERROR',
  });
  expect(String((response.body.error as JsonObject).explanation)).toContain(`'${sessionId}'`);
}

describe('the retry of an operation that succeeded with a session now gone', () => {
  it('gets the stored VERIFY response once the session expired; another body or a first attempt gets the expired 400', async () => {
    const sessionId = await newSession({ order: { currency: 'USD' } });
    const verify = { apiOperation: 'VERIFY', session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    const order = orderId();

    const first = await call('PUT', `/order/${order}/transaction/v1`, verify);
    expect(first.status).toBe(201);
    expect(first.body.result).toBe('SUCCESS');

    await expire(sessionId);
    // The session's 400 as it is answered to a request that is no retry (the edge's, unchanged).
    const fresh = await call('PUT', `/order/${order}/transaction/v2`, verify);
    expectSessionRefusal(fresh, sessionId, /has expired/);

    const retried = await call('PUT', `/order/${order}/transaction/v1`, {
      ...verify,
      correlationId: 'the-retry',
    });
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual({ ...first.body, correlationId: 'the-retry' });

    const changed = await call('PUT', `/order/${order}/transaction/v1`, {
      ...verify,
      transaction: { reference: 'another' },
    });
    expect(changed.body).toEqual(fresh.body);
    expect(changed.status).toBe(400);

    // Another operation under the same id is no retry of the VERIFY.
    const other = await call('PUT', `/order/${order}/transaction/v1`, {
      ...verify,
      apiOperation: 'PAY',
      order: { amount: '1.00' },
    });
    expect(other.body).toEqual(fresh.body);

    expect(await transactionsOn(order)).toEqual(['v1']);
  });

  it('gets the stored PAY response once the session was deleted outright; nothing is paid again or for another id', async () => {
    const sessionId = await newSession({ order: { amount: '12.50', currency: 'USD' } });
    const pay = { apiOperation: 'PAY', session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    const order = orderId();

    const first = await call('PUT', `/order/${order}/transaction/p1`, pay);
    expect(first.status).toBe(201);
    expect(first.body.result).toBe('SUCCESS');
    expect((first.body.order as JsonObject).totalCapturedAmount).toBe(12.5);

    await forget(sessionId);
    const retried = await call('PUT', `/order/${order}/transaction/p1`, pay);
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(first.body);

    const fresh = await call('PUT', `/order/${order}/transaction/p2`, pay);
    expectSessionRefusal(fresh, sessionId, /must name a session of this merchant/);

    const retrieved = await call('GET', `/order/${order}`);
    expect(retrieved.body.totalCapturedAmount).toBe(12.5);
    expect(await transactionsOn(order)).toEqual(['p1']);
  });

  it('is no replay for another merchant naming the same order, transaction and body', async () => {
    const sessionId = await newSession({ order: { currency: 'USD' } });
    const verify = { apiOperation: 'VERIFY', session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } };
    const order = orderId();
    expect((await call('PUT', `/order/${order}/transaction/v1`, verify)).status).toBe(201);
    await expire(sessionId);

    const stranger = await gateway.newMerchant();
    const theirs = await callAs(gateway, stranger, 'PUT', `/order/${order}/transaction/v1`, verify);
    expectSessionRefusal(theirs, sessionId, /must name a session of this merchant/);
  });
});
