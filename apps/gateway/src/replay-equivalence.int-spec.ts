import { randomBytes } from 'node:crypto';
import { JsonObject } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import {
  CARD_SERVICES,
  GatewayResponse,
  startTestGateway,
  TestGateway,
  TestGatewayMerchant,
} from './testing/test-gateway';

/**
 * Which retries of a transaction are the same request (ARCHITECTURE 4.8, docs/decisions/keyed-request-hash.md,
 * amendment 2026-11-27): the canonical body is the JSON with its keys sorted, without
 * `correlationId`; the path's version is no part of it. Values are compared as sent: an amount
 * written another way is another request, refused with nothing done. Driven over HTTP against
 * the edge, order-transaction and the test acquirer.
 */
let gateway: TestGateway;
let merchant: TestGatewayMerchant;

beforeAll(async () => {
  gateway = await startTestGateway({
    ...CARD_SERVICES,
    merchantDefaults: { name: 'Replay equivalence', idPrefix: 'INTRPE' },
  });
  merchant = await gateway.newMerchant();
}, 60_000);

afterAll(async () => {
  await gateway?.running.shutdown('tests done');
});

function call(
  method: 'PUT' | 'GET',
  path: string,
  body?: JsonObject,
  version = 100,
): Promise<GatewayResponse> {
  return gateway.fetch(`${merchant.base(version)}${path}`, {
    method,
    headers: {
      authorization: merchant.authorization,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

const card = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } };

async function paidOnce(orderId: string): Promise<void> {
  const order = await call('GET', `/order/${orderId}`);
  expect(order.status).toBe(200);
  expect(order.body).toMatchObject({
    totalCapturedAmount: 10,
    transaction: [expect.objectContaining({ transaction: expect.objectContaining({ id: 't1' }) })],
  });
  expect(order.body.transaction).toHaveLength(1);
}

describe('a retry of a PAY', () => {
  it('under another path version, with its keys in another order and another correlationId, is answered the stored response: only version and correlationId differ', async () => {
    const orderId = `rpe-${randomBytes(5).toString('hex')}`;
    const first = await call('PUT', `/order/${orderId}/transaction/t1`, {
      apiOperation: 'PAY',
      order: { amount: '10.00', currency: 'USD' },
      sourceOfFunds: card,
      correlationId: 'a',
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ result: 'SUCCESS', version: '100', correlationId: 'a' });

    const retried = await call(
      'PUT',
      `/order/${orderId}/transaction/t1`,
      {
        correlationId: 'b',
        sourceOfFunds: card,
        order: { currency: 'USD', amount: '10.00' },
        apiOperation: 'PAY',
      },
      61,
    );
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual({ ...first.body, version: '61', correlationId: 'b' });
    await paidOnce(orderId);
  });

  it('with its amount written another way (10 for 10.00) is another request: 400, nothing done', async () => {
    const orderId = `rpe-fmt-${randomBytes(5).toString('hex')}`;
    const pay = { apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: card };
    expect((await call('PUT', `/order/${orderId}/transaction/t1`, pay)).status).toBe(201);

    const reformatted = await call('PUT', `/order/${orderId}/transaction/t1`, {
      ...pay,
      order: { amount: '10', currency: 'USD' },
    });
    expect(reformatted.status).toBe(400);
    expect(reformatted.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: `Transaction 't1' on order '${orderId}' was already processed with different values. Use a new transaction id for a new request.`,
      },
      result: 'ERROR',
    });
    await paidOnce(orderId);
  });
});
